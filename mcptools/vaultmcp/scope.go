package vaultmcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
)

// Scope results.
const (
	// ResultScoped: the policy is valid and the caller may read the stage;
	// Visible is the declared tools their rank allows (possibly none).
	ResultScoped = "scoped"
	// ResultFailClosed: no tool is visible and every call is refused.
	ResultFailClosed = "fail-closed"
)

// Scope reasons besides the icm policy reason codes (icm.PolicyReasons).
const (
	// ReasonOK: every declared tool is visible.
	ReasonOK = "ok"
	// ReasonRank: the caller's rank hides tools: some declared ones
	// (scoped), or all because they cannot read the stage (fail-closed).
	ReasonRank = "rank"
	// ReasonMissing: the stage has no CONTEXT.md, or it has no frontmatter.
	ReasonMissing = "missing"
	// ReasonNotLoggedIn: there is no credential file.
	ReasonNotLoggedIn = "not-logged-in"
	// ReasonNotFound: the workspace is gone or no longer visible.
	ReasonNotFound = "not-found"
	// ReasonContractRefused: CONTEXT.md is not a regular file or is over
	// engine.MaxContractBytes.
	ReasonContractRefused = "contract-refused"
	// ReasonError: the vault could not be read.
	ReasonError = "error"
)

// ScopeState is one resolution of a scoped server's visible tools.
type ScopeState struct {
	// Head is the workspace version the contract was read at.
	Head engine.Hash
	// Contract is the blob id of the stage's CONTEXT.md (zero when absent
	// or unread).
	Contract engine.Hash
	// Access is the access version the rank came from.
	Access engine.Hash
	// Rank is the caller's effective rank on the stage folder.
	Rank engine.Rank
	// Declared is the policy's tools (nil when it failed).
	Declared []string
	// Visible is the tools callable now, in ScopedTools order.
	Visible []string
	// Hidden counts the scoped tools not visible.
	Hidden int
	// Result is ResultScoped or ResultFailClosed.
	Result string
	// Reason is ReasonOK, ReasonRank, another Reason constant, or an icm
	// policy reason code.
	Reason string
	// Detail explains a failure for diagnostics (it may quote a bounded
	// part of the contract; it is never recorded as evidence).
	Detail string
	// CorrelationID identifies the resolution that produced this outcome.
	CorrelationID string
}

// Allows reports whether tool is visible in the state.
func (st *ScopeState) Allows(tool string) bool {
	return st != nil && slices.Contains(st.Visible, tool)
}

// sameOutcome reports whether two resolutions have the same inputs that
// matter (contract version, access version, rank) and the same outcome;
// the head may differ (another stage changed).
func (st *ScopeState) sameOutcome(o *ScopeState) bool {
	return st.Contract == o.Contract && st.Access == o.Access && st.Rank == o.Rank &&
		st.Result == o.Result && st.Reason == o.Reason && slices.Equal(st.Visible, o.Visible)
}

// Scope returns the current scope, resolving it again when the cached one
// is older than ScopeTTL by the server's clock (Config.Now). A resolution whose inputs or outcome differ from
// the previous one is recorded as evidence; one whose visible set differs
// sends notifications/tools/list_changed.
func (s *Server) Scope(ctx context.Context) *ScopeState {
	s.mu.Lock()
	defer s.mu.Unlock()
	// A negative age (the clock was set back) counts as expired.
	if age := s.cfg.Now().Sub(s.checked); s.state != nil && age >= 0 && age < s.ttl {
		return s.state
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ResolveTimeout)
	st := s.resolve(rctx)
	cancel()
	s.checked = s.cfg.Now()
	prev := s.state
	if prev != nil && prev.sameOutcome(st) {
		st.CorrelationID = prev.CorrelationID
		s.state = st
		return st
	}
	st.CorrelationID = newCorrelationID()
	s.state = st
	if s.listed != nil {
		s.syncTools(st)
	}
	changed := prev != nil && !slices.Equal(prev.Visible, st.Visible)
	event := EventResolved
	if changed {
		event = EventChanged
	}
	if st.Detail != "" {
		fmt.Fprintf(s.cfg.Log, "tv mcp serve: scope %s (%s): %s\n", st.Result, st.Reason, st.Detail)
	}
	if s.cfg.EvidencePath != "" {
		if err := AppendEvidence(s.cfg.EvidencePath, s.evidence(st, event)); err != nil {
			fmt.Fprintf(s.cfg.Log, "tv mcp serve: scope evidence not recorded: %v\n", err)
		}
	}
	if changed {
		fmt.Fprintf(s.cfg.Log, "tv mcp serve: visible tools changed from %v to %v\n", prev.Visible, st.Visible)
	}
	return st
}

// resolve computes the scope from the vault now: the caller's rank on the
// stage folder, then the stage's contract at the workspace head.
func (s *Server) resolve(ctx context.Context) *ScopeState {
	st := &ScopeState{Result: ResultFailClosed, Visible: []string{}}
	fail := func(reason string, err error) *ScopeState {
		st.Reason = reason
		if err != nil {
			st.Detail = err.Error()
		}
		st.Hidden = len(scopedTools())
		return st
	}
	if s.unbound != nil {
		return fail(engineReason(s.unbound), s.unbound)
	}
	eff, err := s.eng.EffectiveRank(ctx, s.ws.ID, s.stage)
	if err != nil {
		return fail(engineReason(err), err)
	}
	st.Rank, st.Access = eff.Rank, eff.AccessVersion
	if eff.Rank < engine.RankRead {
		return fail(ReasonRank, fmt.Errorf("%s has %s on %s:%s", eff.User, eff.Rank, s.ws.ID, s.stage))
	}
	head, blob, content, err := s.eng.StageContract(ctx, s.ws.ID, s.stage)
	st.Head, st.Contract = head, blob
	if err != nil {
		return fail(engineReason(err), err)
	}
	if blob.IsZero() {
		return fail(ReasonMissing, fmt.Errorf("%s/CONTEXT.md does not exist at version %s", s.stage, head.Short()))
	}
	p, err := icm.ParsePolicy(content, icm.KnownTools())
	if err != nil {
		reason := icm.PolicyReason(err)
		if reason == "" {
			reason = ReasonError
		}
		return fail(reason, err)
	}
	if p == nil {
		return fail(ReasonMissing, fmt.Errorf("%s/CONTEXT.md has no policy frontmatter", s.stage))
	}
	st.Result, st.Reason, st.Declared = ResultScoped, ReasonOK, p.Tools
	for _, t := range scopedTools() {
		switch {
		case !p.Allows(t.Name):
		case eff.Rank >= t.rank:
			st.Visible = append(st.Visible, t.Name)
		default:
			st.Reason = ReasonRank
		}
	}
	st.Hidden = len(scopedTools()) - len(st.Visible)
	return st
}

// engineReason classifies an engine error as a scope reason.
func engineReason(err error) string {
	switch {
	case errors.Is(err, engine.ErrNotLoggedIn):
		return ReasonNotLoggedIn
	case errors.Is(err, engine.ErrPermission):
		return ReasonRank
	case errors.Is(err, engine.ErrNotFound):
		return ReasonNotFound
	case errors.Is(err, engine.ErrRefused):
		return ReasonContractRefused
	}
	return ReasonError
}

func newCorrelationID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// evidence builds the evidence record of a resolution.
func (s *Server) evidence(st *ScopeState, event string) EvidenceRecord {
	rec := EvidenceRecord{
		Time: s.cfg.Now().UTC().Format(time.RFC3339Nano), Event: event,
		Workspace: s.ws.ID, Stage: s.stage, Rank: st.Rank.String(),
		Visible: st.Visible, Hidden: st.Hidden, Result: st.Result, Reason: st.Reason,
		CorrelationID: st.CorrelationID,
	}
	if !st.Contract.IsZero() {
		rec.ContractVersion = st.Contract.String()
	}
	if !st.Access.IsZero() {
		rec.AccessVersion = st.Access.String()
	}
	if rec.Visible == nil {
		rec.Visible = []string{}
	}
	return rec
}
