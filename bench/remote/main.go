// Command remote compares tv on a vault served by git http-backend (on
// 127.0.0.1, in this process through net/http/cgi) with stock git on an
// equivalent repository on the same server, side by side in one run:
//
//   - commit one changed file      vs git commit -a + git push (from a clone)
//   - first checkout of a workspace vs git clone --depth 1 --single-branch
//   - tv workspace list             vs git ls-remote
//   - N concurrent committers to N different workspaces: how many land
//
// Each round of the checkout runs tv first and git last, or the other way
// round, in turn; the table gives the medians and each round's ratio.
//
// The corpus is generated at run time in a temporary directory: one
// workspace of -files files and -others other workspaces. Nothing is
// written inside the repository.
//
//	go run ./bench/remote [-files 10000] [-others 1000] [-reps 5] [-committers 48]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/thalix/tv/mounts"
)

var (
	files      = flag.Int("files", 10000, "files in the measured workspace")
	others     = flag.Int("others", 1000, "other workspaces in the vault")
	reps       = flag.Int("reps", 5, "repetitions per measurement (median reported)")
	committers = flag.Int("committers", 48, "concurrent committers to distinct workspaces")
	tvBin      = flag.String("tv", "", "tv binary, with tv-full beside it (default: go build ./cmd/tv ./cmd/tv-full)")
	keep       = flag.Bool("keep", false, "keep the work directory")
	corpus     = flag.String("corpus", "", "generate the vaults into this directory once and reuse them in later runs (default: in the work directory)")
	ops        = flag.String("ops", "commit,checkout,list,concurrent", "the measurements to run")
)

// measure reports whether -ops names op.
func measure(op string) bool { return slices.Contains(strings.Split(*ops, ","), op) }

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/remote:", err)
		os.Exit(1)
	}
}

type env struct {
	work, tv, url, peerURL string
	base                   []string
}

func (e *env) cmd(extra []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(slices.Clone(e.base), extra...)
	return c
}

func (e *env) must(extra []string, name string, args ...string) string {
	out, err := e.cmd(extra, name, args...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		os.Exit(1)
	}
	return string(out)
}

func timed(f func()) time.Duration {
	t := time.Now()
	f()
	return time.Since(t)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func run() error {
	work, err := os.MkdirTemp("", "tv-bench-remote-")
	if err != nil {
		return err
	}
	if !*keep {
		defer os.RemoveAll(work)
	} else {
		fmt.Fprintln(os.Stderr, "work directory:", work)
	}
	e, err := newEnv(work)
	if err != nil {
		return err
	}
	cdir := *corpus
	if cdir == "" {
		cdir = filepath.Join(work, "corpus")
	}
	home := filepath.Join(cdir, "home")
	e.base = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_DATA_HOME="+home+"/.local/share",
		"XDG_STATE_HOME="+home+"/.local/state", "XDG_CACHE_HOME="+work+"/cache", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=alice", "GIT_AUTHOR_EMAIL=alice@example.com", "GIT_COMMITTER_NAME=alice", "GIT_COMMITTER_EMAIL=alice@example.com")
	local := filepath.Join(cdir, "local.git")
	lenv := []string{"TV_VAULT=" + local}
	ready := filepath.Join(cdir, "ready")
	if _, err := os.Stat(ready); err != nil {
		if err := generate(e, cdir, lenv); err != nil {
			return err
		}
	}
	requests, stop, err := serve(e, filepath.Join(cdir, "srv"))
	if err != nil {
		return err
	}
	defer stop()
	if _, err := os.Stat(ready); err != nil {
		e.must(lenv, e.tv, "vault", "push", e.url)
		e.must(nil, "git", "--git-dir="+local, "push", "-q", filepath.Join(cdir, "srv", "peer.git"), "refs/tv/workspaces/*:refs/heads/*")
		if err := os.WriteFile(ready, nil, 0o644); err != nil {
			return err
		}
	}
	bigID, err := workspaceID(e, lenv, "big")
	if err != nil {
		return err
	}
	renv := []string{"TV_VAULT=" + e.url}
	var res results
	measureListsAndCheckouts(e, &res, lenv, renv, bigID)
	measureCommits(e, &res, renv, bigID)
	res.landed = -1
	if measure("concurrent") {
		if res.landed, err = concurrent(e, renv, *committers); err != nil {
			return err
		}
	}
	res.report(requests.Load())
	return nil
}

// newEnv is the bench's environment in work: the tv binary to run, with
// tv-full beside it (both built static there unless -tv names tv).
func newEnv(work string) (*env, error) {
	e := &env{work: work, tv: *tvBin}
	if e.tv == "" {
		e.tv = filepath.Join(work, "tv")
		build := exec.Command("go", "build", "-o", work+string(filepath.Separator), "./cmd/tv", "./cmd/tv-full")
		build.Env = append(os.Environ(), "CGO_ENABLED=0") // as released: static
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	// Every command of this bench is on a remote vault: tv hands it to
	// tv-full, which must be beside it.
	if full := filepath.Join(filepath.Dir(e.tv), "tv-full"); !isFile(full) {
		return nil, fmt.Errorf("%s is not beside %s: tv runs it for remote vaults (go build -o DIR/ ./cmd/tv ./cmd/tv-full)", full, e.tv)
	}
	return e, nil
}

// isFile reports whether p is a regular file.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// serve starts git http-backend over root on 127.0.0.1 behind an HTTP
// server that counts its requests, and sets e's vault and peer URLs.
func serve(e *env, root string) (requests *atomic.Int64, stop func(), err error) {
	requests = new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	gitPath, _ := exec.LookPath("git")
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		(&cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, Dir: root,
			Env:        []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=alice", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root},
			InheritEnv: []string{"PATH"}}).ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	base := "http://" + ln.Addr().String()
	e.url, e.peerURL = base+"/vault.git", base+"/peer.git"
	return requests, func() { srv.Shutdown(context.Background()) }, nil
}

// workspaceID is the id of the workspace named name in the vault of env.
func workspaceID(e *env, env []string, name string) (string, error) {
	var list struct {
		Workspaces []struct {
			ID   string `json:"workspace_id"`
			Name string `json:"workspace_name"`
		} `json:"workspaces"`
	}
	if err := json.Unmarshal([]byte(e.must(env, e.tv, "workspace", "list", "--json")), &list); err != nil {
		return "", err
	}
	for _, w := range list.Workspaces {
		if w.Name == name {
			return w.ID, nil
		}
	}
	return "", fmt.Errorf("no id for workspace %s", name)
}

// results are the bench's samples.
type results struct {
	tvList, gitList, tvCo, gitCo, localCo, tvCommit, gitCommit []time.Duration
	landed                                                     int // concurrent commits that landed; -1: not measured
}

// measureListsAndCheckouts times tv workspace list against git ls-remote
// and the first checkout of workspace bigID against a shallow clone,
// -reps rounds.
func measureListsAndCheckouts(e *env, res *results, lenv, renv []string, bigID string) {
	e.must(renv, e.tv, "workspace", "list") // warm the cache once
	for r := range *reps {
		if measure("list") {
			res.tvList = append(res.tvList, timed(func() { e.must(renv, e.tv, "workspace", "list") }))
			res.gitList = append(res.gitList, timed(func() { e.must(nil, "git", "ls-remote", e.peerURL) }))
		}
		if !measure("checkout") && !measure("commit") {
			continue
		}
		cache := []string{"TV_VAULT=" + e.url, fmt.Sprintf("XDG_CACHE_HOME=%s/cache-%d", e.work, r)}
		tvFirst := func() {
			res.tvCo = append(res.tvCo, timed(func() {
				e.must(cache, e.tv, "workspace", "checkout", bigID, "--output", fmt.Sprintf("%s/tvco-%d", e.work, r))
			}))
		}
		gitFirst := func() {
			res.gitCo = append(res.gitCo, timed(func() {
				e.must(nil, "git", "clone", "-q", "--depth", "1", "--single-branch", "--branch", bigID, e.peerURL, fmt.Sprintf("%s/gitco-%d", e.work, r))
			}))
		}
		// tv and git take turns going first: creating 10,000 files costs
		// what the file system's state makes it (ext4 without a journal
		// scans past inodes freed in the last minutes on every create),
		// and the first of a round meets a different state than the last.
		first, last := tvFirst, gitFirst
		if r%2 == 1 {
			first, last = gitFirst, tvFirst
		}
		first()
		// The same checkout from the local vault: what tv's file writing
		// alone costs here, beside what the remote adds.
		res.localCo = append(res.localCo, timed(func() {
			e.must(lenv, e.tv, "workspace", "checkout", bigID, "--output", fmt.Sprintf("%s/localco-%d", e.work, r))
		}))
		last()
	}
}

// measureCommits times a one-file commit to the remote vault against git
// commit -a and push, -reps times, in the first round's checkouts.
func measureCommits(e *env, res *results, renv []string, bigID string) {
	if !measure("commit") {
		return
	}
	tvDir, gitDir := filepath.Join(e.work, "tvco-0"), filepath.Join(e.work, "gitco-0")
	e.must(renv, e.tv, "workspace", "walk-test", tvDir) // warms the stat cache, as git status would
	for r := range *reps {
		f := "stages/01-research/references/bulk/d000/f000.md"
		os.WriteFile(filepath.Join(tvDir, f), []byte(fmt.Sprintf("tv change %d\n", r)), 0o644)
		os.WriteFile(filepath.Join(gitDir, f), []byte(fmt.Sprintf("git change %d\n", r)), 0o644)
		res.tvCommit = append(res.tvCommit, timed(func() { e.must(renv, e.tv, "workspace", "commit", tvDir, "--reason", "one file") }))
		res.gitCommit = append(res.gitCommit, timed(func() {
			e.must(nil, "git", "-C", gitDir, "commit", "-qam", "one file")
			e.must(nil, "git", "-C", gitDir, "push", "-q", "origin", "HEAD:refs/heads/"+bigID)
		}))
	}
}

// report prints the table of res and the server's request count.
func (res *results) report(requests int64) {
	fmt.Printf("remote vault on git http-backend (127.0.0.1), %d-file workspace, %d other workspaces, median of %d\n\n", *files, *others, *reps)
	fmt.Printf("| operation | tv | git | ratio | target |\n|---|---|---|---|---|\n")
	row := func(op, peer string, tv, git []time.Duration, target float64) {
		if len(tv) == 0 {
			return
		}
		ratio := float64(median(tv)) / float64(median(git))
		ok := "met"
		if ratio > target {
			ok = "MISSED"
		}
		fmt.Printf("| %s vs %s | %v | %v | %.2f× | ≤ %.1f× %s |\n", op, peer, median(tv).Round(time.Millisecond), median(git).Round(time.Millisecond), ratio, target, ok)
	}
	row("commit one file", "git commit -a + git push", res.tvCommit, res.gitCommit, 1.0)
	row("first checkout (by id)", "git clone --depth 1 --single-branch", res.tvCo, res.gitCo, 1.0)
	if len(res.tvCo) > 0 {
		ratios := make([]float64, len(res.tvCo))
		for i := range res.tvCo {
			ratios[i] = float64(res.tvCo[i]) / float64(res.gitCo[i])
		}
		slices.Sort(ratios)
		fmt.Printf("| (info) first checkout, each round's tv/git (sorted) | | | %.2f× median (%s) | |\n", ratios[len(ratios)/2], fmtRatios(ratios))
	}
	row("tv workspace list", "git ls-remote", res.tvList, res.gitList, 1.5)
	if len(res.localCo) > 0 {
		fmt.Printf("| (info) checkout from the local vault vs the same clone | %v | %v | %.2f× | |\n", median(res.localCo).Round(time.Millisecond), median(res.gitCo).Round(time.Millisecond), float64(median(res.localCo))/float64(median(res.gitCo)))
	}
	if res.landed >= 0 {
		fmt.Printf("| %d concurrent committers, %d workspaces | %d/%d landed | | | 100%% |\n", *committers, *committers, res.landed, *committers)
	}
	fmt.Printf("\nserver requests: %d\n", requests)
}

// fmtRatios renders ratios as "0.81 0.90 …".
func fmtRatios(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.2f", r)
	}
	return strings.Join(parts, " ")
}

// initOthers adds n small workspaces to the local vault in-process.
func initOthers(vaultPath, home string, n int) error {
	ctx := context.Background()
	v, err := gitbackend.Open(vaultPath)
	if err != nil {
		return err
	}
	mp, _ := mounts.DefaultPath(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	eng := engine.New(v, engine.Options{Actor: &engine.Credentials{User: "alice", Email: "alice@example.com"}, MountsPath: mp})
	for i := range n {
		if _, err := eng.InitWorkspace(ctx, fmt.Sprintf("other%04d", i), ""); err != nil {
			return err
		}
	}
	return nil
}

// concurrent checks out n other workspaces, changes one file in each and
// commits them all at once; it returns how many landed.
func concurrent(e *env, renv []string, n int) (int, error) {
	list := e.must(renv, e.tv, "workspace", "list")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "other") && len(names) < n {
				names = append(names, f)
			}
		}
	}
	if len(names) < n {
		return 0, fmt.Errorf("only %d other workspaces for %d committers", len(names), n)
	}
	dirs := make([]string, n)
	for i, name := range names {
		dirs[i] = filepath.Join(e.work, "conc", name)
		e.must(renv, e.tv, "workspace", "checkout", name, "--output", dirs[i])
		os.WriteFile(filepath.Join(dirs[i], "stages", "01-research", "output", "c.md"), []byte(name+"\n"), 0o644)
	}
	var landed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, d := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c := e.cmd(renv, e.tv, "workspace", "commit", d, "--reason", "concurrent")
			c.Stdout = io.Discard
			var errb strings.Builder
			c.Stderr = &errb
			if c.Run() == nil {
				landed.Add(1)
			} else {
				fmt.Fprintf(os.Stderr, "commit %s: %s", d, errb.String())
			}
		}()
	}
	close(start)
	wg.Wait()
	return int(landed.Load()), nil
}

// generate makes the corpus in cdir: a local vault with a -files
// workspace and -others small ones, and two empty server repositories
// (the vault's and the git peer's) that run fills.
func generate(e *env, cdir string, lenv []string) error {
	local := filepath.Join(cdir, "local.git")
	e.must(lenv, e.tv, "login", "--user", "alice")
	fmt.Fprintf(os.Stderr, "generating a %d-file workspace and %d other workspaces in %s\n", *files, *others, cdir)
	src := filepath.Join(cdir, "src")
	e.must(nil, "cp", "-R", "starter/files/.", src+"/")
	for i := range *files {
		d := filepath.Join(src, "stages", "01-research", "references", "bulk", fmt.Sprintf("d%03d", i/100))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, fmt.Sprintf("f%03d.md", i%100)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	e.must(lenv, e.tv, "workspace", "import", src, "--name", "big")
	// Grants exist, so every commit binds to refs/tv/access (the
	// contended case without the server hook).
	e.must(lenv, e.tv, "access", "grant", "alice", "manage", "@vault")
	if err := initOthers(local, filepath.Join(cdir, "home"), *others); err != nil {
		return err
	}

	root := filepath.Join(cdir, "srv")
	e.must(nil, "git", "init", "-q", "--bare", filepath.Join(root, "vault.git"))
	e.must(nil, "git", "init", "-q", "--bare", filepath.Join(root, "peer.git"))
	return nil
}
