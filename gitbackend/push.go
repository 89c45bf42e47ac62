package gitbackend

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zlib"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend/wire"
)

// UpdateRefs applies the updates on the server as one atomic push: every
// step is a command with tv's exact old value; a verify-only step is a
// command whose old and new values are equal (the server checks it under
// the ref's lock and leaves the ref alone). The verify step on
// engine.AccessRef is left out when the server carries EnforcedRef: its
// hook checks each push against the live grants itself, so commits to
// different workspaces do not all name the one access ref. A verify step
// that expects a ref to be absent cannot be sent (git's protocol has no
// zero-to-zero command) and is checked only against the listing taken
// just before the push. Only objects the server lacks are sent.
//
// A server that does not advertise "atomic" is refused (never a partial
// update). On refusal the server's refs are listed again: a ref whose old
// value no longer holds is engine.ErrRefStale (the engine re-applies on
// top); a locked ref is retried with back-off up to RemoteLockRetries,
// then engine.ErrRefLocked; a hook's `tv: <code>: <message>` lines become
// the matching engine errors; a server not reached is ErrUnreachable and
// the cache's refs are left as they were.
func (r *Remote) UpdateRefs(ctx context.Context, updates ...engine.RefUpdate) error {
	if r.offline != nil {
		return fmt.Errorf("%w (writes need the server; nothing was changed)", r.offline)
	}
	if len(updates) == 0 {
		return nil
	}
	for _, u := range updates {
		if err := checkRefName(u.Name); err != nil {
			return err
		}
		if !u.Verify && !u.New.IsZero() && !r.cache.objectExists(u.New) {
			return fmt.Errorf("%w: cannot point %s at %s: the vault has no such object", engine.ErrObjectNotFound, u.Name, u.New)
		}
	}
	_, enforced := r.snapshot()[EnforcedRef]
	var ups []engine.RefUpdate
	for _, u := range updates {
		switch {
		case u.Verify && u.Old.IsZero():
			// "must be absent" has no verify-only form in git's protocol
			// (a command from zero to zero is malformed); see above.
		case u.Verify && enforced && u.Name == engine.AccessRef:
		default:
			ups = append(ups, u)
		}
	}
	if len(ups) == 0 {
		return nil
	}
	delay := RemoteLockBackoff
	for attempt := 0; ; attempt++ {
		err := r.push(ctx, ups, updates)
		if !errors.Is(err, engine.ErrRefLocked) || attempt >= RemoteLockRetries {
			return err
		}
		// Jittered, so pushers that collided do not collide again.
		wait := delay/2 + time.Duration(mrand.Int64N(int64(delay)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		delay = min(2*delay, RemoteLockMaxBackoff)
	}
}

// push sends one atomic receive-pack request of ups, after checking the
// old values of checks (ups and the steps that cannot be sent) against
// the server's advertisement.
func (r *Remote) push(ctx context.Context, ups, checks []engine.RefUpdate) error {
	sess, adv, err := r.receiveSession(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	if !adv.Supports(wire.CapAtomic) {
		return fmt.Errorf("%w: %s does not offer atomic pushes (capability %q); tv commits only by atomic push and does not fall back to a partial update: enable it on the server (git config receive.advertiseAtomic true)",
			ErrNoAtomic, r.loc.URL, wire.CapAtomic)
	}
	current, err := advRefs(adv)
	if err != nil {
		return err
	}
	// Stale before sending anything: cheaper than a refused pack. This
	// also checks the absent-ref verify steps the push cannot carry.
	for _, u := range checks {
		cur, ok := current[u.Name]
		if (u.Old.IsZero() && ok) || (!u.Old.IsZero() && cur != u.Old) {
			r.setListed(current)
			return fmt.Errorf("%w: %s is at %s on %s (expected %s)", engine.ErrRefStale, u.Name, cur, r.loc.URL, u.Old)
		}
	}
	var cmds []wire.Command
	var news []engine.Hash
	for _, u := range ups {
		c := wire.Command{Name: u.Name, Old: u.Old, New: u.New}
		if u.Verify {
			c.New = c.Old
		} else if !u.New.IsZero() {
			news = append(news, u.New)
		}
		cmds = append(cmds, c)
	}
	has := map[engine.Hash]bool{}
	for _, h := range current {
		has[h] = true
	}
	objs, err := r.cache.objectsToSend(ctx, news, has)
	if err != nil {
		return err
	}
	var pack io.Reader
	if len(news) > 0 {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(r.cache.encodePack(pw, objs)) }()
		pack = pr
	}
	var progress bytes.Buffer
	report, err := sess.Push(ctx, cmds, pack, &progress)
	if err == nil && report != nil && report.Err == nil {
		done := map[string]engine.Hash{}
		for _, u := range ups {
			if !u.Verify && !u.New.IsZero() {
				done[u.Name] = u.New
			}
			current[u.Name] = u.New
			if u.Verify {
				current[u.Name] = u.Old
			}
			if !u.Verify && u.New.IsZero() {
				delete(current, u.Name)
			}
		}
		r.setListed(current)
		r.mirror(ctx, done)
		return nil
	}
	return r.refused(ctx, ups, report, err, progress.String())
}

// hookLine is a refusal printed by tv's pre-receive hook (TEAM contract):
// "tv: <code>: <message>", shown by git with a "remote: " prefix.
var hookLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:remote: )?tv: (invalid-tree|permission-denied|input-refused|conflict|not-a-tv-ref): (.*)$`)
})

// hookErrors maps the hook's codes to engine sentinels (exit 3/5/7/4/7).
var hookErrors = map[string]error{
	"invalid-tree":      engine.ErrInvalidTree,
	"permission-denied": engine.ErrPermission,
	"input-refused":     engine.ErrRefused,
	"conflict":          engine.ErrConflict,
	"not-a-tv-ref":      engine.ErrRefused,
}

// refused classifies a push that did not land.
func (r *Remote) refused(ctx context.Context, ups []engine.RefUpdate, report *wire.Report, perr error, progress string) error {
	msgs := strings.TrimSpace(progress)
	var status []string
	if report != nil {
		if report.Unpack != "" && report.Unpack != "ok" {
			status = append(status, "unpack "+report.Unpack)
		}
		for _, c := range report.Refs {
			if c.Status != "ok" {
				status = append(status, fmt.Sprintf("%s: %s", c.Name, c.Status))
			}
		}
	}
	if report == nil && perr != nil && !strings.Contains(perr.Error(), "pre-receive") {
		// No report: the answer was lost or the server was not reached.
		// If the push landed anyway, the next command sees tv's commit at
		// the ref and does not commit it twice.
		return fmt.Errorf("%w: push to %s got no answer (%v); if it landed, the next command sees it", ErrUnreachable, r.loc.URL, scrub(perr))
	}
	// Re-list: a ref that moved makes this a stale push.
	if current, err := r.list(ctx); err == nil {
		for _, u := range ups {
			cur, ok := current[u.Name]
			if (u.Old.IsZero() && ok) || (!u.Old.IsZero() && cur != u.Old) {
				return fmt.Errorf("%w: %s moved on %s while pushing (now %s)", engine.ErrRefStale, u.Name, r.loc.URL, cur)
			}
		}
	}
	if m := hookLine().FindAllStringSubmatch(msgs, -1); len(m) > 0 {
		var lines []string
		for _, x := range m {
			lines = append(lines, "tv: "+x[1]+": "+x[2])
		}
		return fmt.Errorf("%w: the server's tv hook refused the push:\n%s", hookErrors[m[0][1]], strings.Join(lines, "\n"))
	}
	all := strings.Join(append(status, msgs), "\n")
	if perr != nil {
		all += "\n" + scrub(perr)
	}
	lower := strings.ToLower(all)
	switch {
	case strings.Contains(lower, "lock"):
		return fmt.Errorf("%w: a ref is locked on %s: %s", engine.ErrRefLocked, r.loc.URL, oneLine(all))
	case strings.Contains(lower, "denied") || strings.Contains(lower, "permission") || strings.Contains(lower, "not allowed"):
		return fmt.Errorf("%w: %s refused the push: %s", engine.ErrPermission, r.loc.URL, oneLine(all))
	}
	return fmt.Errorf("%w: %s refused the push: %s", engine.ErrRefused, r.loc.URL, oneLine(all))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncate(s, 600)
}

// objectsToSend lists the objects reachable from news that the server,
// which has every object reachable from has, lacks: commits are walked
// until a commit the server has; a tree is compared with the tree of a
// parent the server has, so one changed file sends its blob and the trees
// on its path, not the workspace.
func (v *Vault) objectsToSend(ctx context.Context, news []engine.Hash, has map[engine.Hash]bool) ([]engine.Hash, error) {
	var out []engine.Hash
	seen := map[engine.Hash]bool{}
	add := func(h engine.Hash) bool {
		if seen[h] || has[h] {
			return false
		}
		seen[h] = true
		out = append(out, h)
		return true
	}
	var walkTree func(tree, base engine.Hash) error
	walkTree = func(tree, base engine.Hash) error {
		if tree == base || !add(tree) {
			return nil
		}
		entries, err := v.ReadTree(ctx, tree)
		if err != nil {
			return err
		}
		var old map[string]engine.TreeEntry
		if !base.IsZero() {
			be, err := v.ReadTree(ctx, base)
			if err != nil {
				return err
			}
			old = make(map[string]engine.TreeEntry, len(be))
			for _, e := range be {
				old[e.Name] = e
			}
		}
		for _, e := range entries {
			o, had := old[e.Name]
			if had && o.ID == e.ID {
				continue
			}
			if e.Mode == engine.ModeDir {
				var sub engine.Hash
				if had && o.Mode == engine.ModeDir {
					sub = o.ID
				}
				if err := walkTree(e.ID, sub); err != nil {
					return err
				}
				continue
			}
			add(e.ID)
		}
		return nil
	}
	stack := append([]engine.Hash(nil), news...)
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		typ, _, rc, err := v.openObject(h)
		if err != nil {
			return nil, err
		}
		rc.Close()
		if typ != typeCommit {
			add(h)
			continue
		}
		if !add(h) {
			continue
		}
		c, err := v.ReadCommit(ctx, h)
		if err != nil {
			return nil, err
		}
		var base engine.Hash
		for _, p := range c.Parents {
			if has[p] {
				pc, err := v.ReadCommit(ctx, p)
				if err != nil {
					return nil, err
				}
				base = pc.Tree
				break
			}
			stack = append(stack, p)
		}
		if err := walkTree(c.Tree, base); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// encodePack writes a version 2 pack of objs (whole objects, zlib) to w.
func (v *Vault) encodePack(w io.Writer, objs []engine.Hash) error {
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(objs)))
	bw.Write(hdr[:])
	zw, _ := zlib.NewWriterLevel(bw, zlibLevel)
	for _, h := range objs {
		typ, size, rc, err := v.openObject(h)
		if err != nil {
			return err
		}
		bw.Write(packEntryHeader(typ, size))
		zw.Reset(bw)
		n, err := io.Copy(zw, rc)
		rc.Close()
		if err != nil {
			return err
		}
		if n != size {
			return fmt.Errorf("object %s: read %d bytes, want %d", h, n, size)
		}
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// packEntryHeader encodes a pack entry header: type and size in git's
// variable-length encoding.
func packEntryHeader(typ int, size int64) []byte {
	var b [16]byte
	c := byte(typ<<4) | byte(size&0x0f)
	size >>= 4
	n := 0
	for size > 0 {
		b[n] = c | 0x80
		n++
		c = byte(size & 0x7f)
		size >>= 7
	}
	b[n] = c
	return b[:n+1]
}
