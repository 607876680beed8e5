package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newAgentCmd() *cobra.Command {
	return commandGroup("agent", "Owner attestations (NIP-OA auth tags) for agent keys",
		`An owner key attests an agent key with a NIP-OA tag
["auth", owner_pubkey_hex, conditions, sig_hex]. The agent attaches the tag to
its AUTH event; the hub admits it on behalf of the owner while the conditions
hold. See spec/identity.md.`,
		newAgentAttestCmd(), newAgentVerifyCmd(), newAgentRevokeCmd(), newAgentProfileCmd(), newAgentListCmd(), newAgentWatchCmd())
}

// attestationJSON is an attestation as agent attest and agent verify print
// it with --json.
type attestationJSON struct {
	Owner      string `json:"owner,omitempty"` // "" when verify could not read the tag
	OwnerNpub  string `json:"owner_npub,omitempty"`
	Agent      string `json:"agent"`
	AgentNpub  string `json:"agent_npub"`
	Conditions string `json:"conditions"`
	Kinds      []int  `json:"kinds"`
	NotBefore  *int64 `json:"not_before"` // created_at must be >= not_before (null: no bound)
	ExpiresAt  *int64 `json:"expires_at"` // created_at must be < expires_at (null: no bound)
}

// bounds fills in what conds say: the kinds and the created_at bounds.
func (a *attestationJSON) bounds(conds identity.Conditions) {
	a.Kinds = conds.Kinds()
	if t, ok := conds.Expiry(); ok {
		a.ExpiresAt = &t
	}
	if t, ok := conds.NotBefore(); ok {
		t++ // created_at>T means created_at >= T+1
		a.NotBefore = &t
	}
}

// attestOutput is the --json output of agent attest.
type attestOutput struct {
	Tag nostr.Tag `json:"tag"`
	attestationJSON
}

type attestFlags struct {
	key       string
	agent     string
	expires   string
	noExpiry  bool
	kinds     []string
	notBefore string
	now       int64
}

func newAgentAttestCmd() *cobra.Command {
	var f attestFlags
	cmd := &cobra.Command{
		Use:   "attest --key OWNER_KEYFILE --agent NPUB|HEX --expires DURATION",
		Short: "Sign an attestation tag authorising an agent key; prints the tag as a JSON array",
		Long: `Sign a NIP-OA auth tag by which the owner (--key) authorises the agent (--agent).

The conditions are built from the flags:
  --expires D      created_at<(now+D): events must be created before then.
                   D is a number with unit s, m, h or d, or several (1d12h).
                   Required unless --no-expiry is given.
  --not-before T   created_at>(T-1): events must be created at or after T.
                   T is "now" (default), "none", a unix time or an RFC 3339
                   time. A tag valid from its issue time on survives a later
                   revocation of the agent only if it was issued after it
                   (re-attest at least one second after revoking).
  --kinds K        kind=K. NIP-OA clauses must all hold, so one tag can name
                   at most one kind; issue one tag per kind otherwise.

The tag is valid for events with not_before <= created_at < expires_at.`,
		Example: `  hive agent attest --key owner.key --agent npub1... --expires 30d
  hive agent attest --key owner.key --agent <hex> --expires 12h --kinds 9 --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAttest(cmd, f) },
	}
	cmd.Flags().StringVar(&f.agent, "agent", "", "agent public key, npub1... or 64 hex (required)")
	cmd.Flags().StringVar(&f.expires, "expires", "", "lifetime from now, e.g. 30d, 12h, 90m, 1d12h")
	cmd.Flags().BoolVar(&f.noExpiry, "no-expiry", false, "issue a tag without created_at< bound (valid until revoked)")
	cmd.Flags().StringSliceVar(&f.kinds, "kinds", nil, "restrict the tag to this event kind (one kind per tag)")
	cmd.Flags().StringVar(&f.notBefore, "not-before", "now", `created_at> bound: "now", "none", unix seconds or RFC 3339`)
	cmd.Flags().Int64Var(&f.now, "now", 0, "use this unix time as the current time (testing)")
	_ = cmd.Flags().MarkHidden("now")
	return cmd
}

func runAttest(cmd *cobra.Command, f attestFlags) error {
	f.key = keyFileOf(cmd)
	if f.key == "" {
		return usageErrorf("--key is required: the owner key file (create one with: hive key new --out owner.key)")
	}
	if f.agent == "" {
		return usageErrorf("--agent is required: the agent's npub or hex public key")
	}
	agent, err := identity.ParsePublicKey(f.agent)
	if err != nil {
		return usageErrorf("--agent: %v", err)
	}
	spec := identity.AttestSpec{Now: f.now, NoExpiry: f.noExpiry}
	if spec.Now == 0 {
		spec.Now = time.Now().Unix()
	}
	if spec.Kinds, err = parseKinds(f.kinds); err != nil {
		return err
	}
	switch nb := strings.TrimSpace(f.notBefore); nb {
	case "none", "":
	case "now":
		spec.NotBefore = &spec.Now
	default:
		t, err := parseTime(nb)
		if err != nil {
			return usageErrorf("--not-before: %v", err)
		}
		spec.NotBefore = &t
	}
	if f.expires != "" {
		if spec.ValidFor, err = parseDuration(f.expires); err != nil {
			return usageErrorf("--expires: %v", err)
		}
	}
	conds, err := spec.Conditions()
	if err != nil {
		return withHint(exitWith(exitUsage, err), "e.g. hive agent attest --agent NPUB --expires 30d")
	}

	owner, err := loadKeyFile(cmd, f.key)
	if err != nil {
		return err
	}
	if owner.PublicHex == agent {
		return usageErrorf("--agent is the owner's own key: an owner cannot attest itself; create a separate agent key with: hive key new --out agent.key")
	}
	tag, err := identity.Attest(owner.SecretHex, agent, conds)
	if err != nil {
		return exitWith(exitUsage, err)
	}
	if !jsonOutput(cmd) {
		fmt.Fprintln(cmd.OutOrStdout(), identity.TagJSON(tag))
		return nil
	}
	out := attestOutput{Tag: tag, attestationJSON: attestationJSON{
		Owner: owner.PublicHex, OwnerNpub: owner.Npub(),
		Agent: agent, AgentNpub: npub(agent), Conditions: tag[2],
	}}
	out.bounds(conds)
	return output(cmd, out, nil)
}

// verifyOutput is the --json output of agent verify.
type verifyOutput struct {
	Valid bool   `json:"valid"`
	Error string `json:"error,omitempty"`
	attestationJSON
	At   int64 `json:"at"`             // created_at the time clauses were evaluated at
	Kind *int  `json:"kind,omitempty"` // kind the kind clauses were evaluated for
}

func newAgentVerifyCmd() *cobra.Command {
	var (
		agentFlag string
		tagFlag   string
		kind      int
		at        int64
	)
	cmd := &cobra.Command{
		Use:   "verify --agent NPUB|HEX --tag JSON [--kind N] [--at UNIX]",
		Short: "Verify an attestation tag for an agent; exits 5 when it is not valid",
		Long: `Verify a NIP-OA auth tag for an agent key: structure, owner signature,
self-attestation, and the conditions evaluated for created_at = --at (default:
now) and, when --kind is given, for that kind (kind clauses are not checked
without --kind). --tag takes the JSON array printed by hive agent attest (the
--json object is accepted too), or "-" to read it from standard input.`,
		Example: `  hive agent verify --agent npub1... --tag "$(cat agent.tag)"
  hive agent attest ... | hive agent verify --agent npub1... --tag - --kind 9`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if agentFlag == "" {
				return usageErrorf("--agent is required: the agent's npub or hex public key")
			}
			if tagFlag == "" {
				return usageErrorf(`--tag is required: the JSON array ["auth","<owner hex>","<conditions>","<sig hex>"] (or - for standard input)`)
			}
			agent, err := identity.ParsePublicKey(agentFlag)
			if err != nil {
				return usageErrorf("--agent: %v", err)
			}
			raw := tagFlag
			if raw == "-" {
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), 1<<16))
				if err != nil {
					return fmt.Errorf("reading the tag from standard input: %w", err)
				}
				raw = string(b)
			}
			if !cmd.Flags().Changed("at") {
				at = time.Now().Unix()
			}
			var kindPtr *int
			if cmd.Flags().Changed("kind") {
				kindPtr = &kind
			}
			return runVerify(cmd, agent, raw, kindPtr, at)
		},
	}
	cmd.Flags().StringVar(&agentFlag, "agent", "", "agent public key, npub1... or 64 hex (required)")
	cmd.Flags().StringVar(&tagFlag, "tag", "", `the auth tag as a JSON array, or "-" for standard input (required)`)
	cmd.Flags().IntVar(&kind, "kind", 0, "also check the kind= clauses against this event kind")
	cmd.Flags().Int64Var(&at, "at", 0, "evaluate the time clauses at this unix time (default now)")
	return cmd
}

func runVerify(cmd *cobra.Command, agent, raw string, kind *int, at int64) error {
	out := verifyOutput{attestationJSON: attestationJSON{Agent: agent, AgentNpub: npub(agent)}, At: at, Kind: kind}
	fail := func(code int, err error) error {
		if jsonOutput(cmd) {
			out.Valid, out.Error = false, err.Error()
			if perr := output(cmd, out, nil); perr != nil {
				return perr
			}
		} else {
			fmt.Fprintf(cmd.OutOrStdout(), "invalid: %v\n", err)
		}
		return exitWith(code, err)
	}
	tag, err := parseTagArg(raw)
	if err != nil {
		return fail(exitUsage, err)
	}
	if len(tag) >= 3 {
		out.Conditions = tag[2]
	}
	a, err := identity.VerifyAuthTag(tag, agent)
	if err != nil {
		return fail(exitUsage, err)
	}
	out.Owner, out.OwnerNpub = a.Owner, npub(a.Owner)
	out.bounds(a.Conditions)
	if kind != nil {
		err = a.Conditions.Check(*kind, at)
	} else {
		err = a.Conditions.CheckTime(at)
	}
	if err != nil {
		return fail(exitUsage, err)
	}
	out.Valid = true
	if jsonOutput(cmd) {
		return output(cmd, out, nil)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "valid: owner %s authorises agent %s\n", out.OwnerNpub, out.AgentNpub)
	fmt.Fprintf(w, "owner:      %s\n", a.Owner)
	fmt.Fprintf(w, "agent:      %s\n", agent)
	fmt.Fprintf(w, "conditions: %q\n", a.RawConditions)
	if out.NotBefore != nil {
		fmt.Fprintf(w, "valid from: %d (%s)\n", *out.NotBefore, fmtTime(*out.NotBefore))
	}
	if out.ExpiresAt != nil {
		fmt.Fprintf(w, "expires:    %d (%s); events must be created before it\n", *out.ExpiresAt, fmtTime(*out.ExpiresAt))
	} else {
		fmt.Fprintln(w, "expires:    never (valid until revoked)")
	}
	if len(out.Kinds) > 0 && kind == nil {
		fmt.Fprintf(w, "kinds:      %v (not checked: pass --kind)\n", out.Kinds)
	}
	return nil
}

// parseTagArg accepts the tag JSON array, or the attest --json object.
func parseTagArg(raw string) (nostr.Tag, error) { return identity.ParseAttestationText(raw) }

// parseKinds reads --kinds values (comma separated or repeated). NIP-OA
// clauses are conjunctive, so more than one distinct kind can never hold.
func parseKinds(vals []string) ([]int, error) {
	seen := map[int]bool{}
	var kinds []int
	for _, v := range vals {
		v = strings.TrimSpace(v)
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > identity.MaxConditionKind {
			return nil, usageErrorf("--kinds: %q is not a kind (0..%d)", v, identity.MaxConditionKind)
		}
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	if len(kinds) > 1 {
		return nil, usageErrorf("--kinds %v: a NIP-OA tag must satisfy every kind= clause, so a tag naming %d kinds authorises nothing; issue one attestation per kind, or omit --kinds to allow all kinds", kinds, len(kinds))
	}
	return kinds, nil
}
