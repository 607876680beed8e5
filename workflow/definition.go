// Package workflow reads and validates workflow definitions: the YAML files
// of spec/workflows.md, parsed into typed definitions. Validation never
// guesses: an unknown key, an unknown action, an expression that does not
// compile, a cron out of range or a duration out of bounds is an error with
// its line and column and the fix, never a default.
package workflow

import (
	"time"

	"github.com/ainb/hive/workflow/expression"
	"github.com/ainb/hive/workflow/schedule"
)

// Definition is one workflow.
type Definition struct {
	Name        string
	Channel     string
	Description string
	On          Triggers
	Concurrency string // single | queue | parallel
	Steps       []Step
}

// Triggers are the definition's on: section; nil (or empty) for an absent
// trigger type.
type Triggers struct {
	Message  *MessageTrigger
	Reaction *ReactionTrigger
	Schedule []ScheduleTrigger
	Webhook  *WebhookTrigger
	Manual   *ManualTrigger
}

// Count is how many triggers there are (each schedule entry counts).
func (t Triggers) Count() int {
	n := len(t.Schedule)
	for _, set := range []bool{t.Message != nil, t.Reaction != nil, t.Webhook != nil, t.Manual != nil} {
		if set {
			n++
		}
	}
	return n
}

// MessageTrigger starts a run on a message in the workflow's channel.
type MessageTrigger struct {
	When    *Condition // nil: every message
	From    From
	Threads string // top | replies | any
}

// ReactionTrigger starts a run on a reaction in the workflow's channel.
type ReactionTrigger struct {
	Emoji string // "" for any
	When  *Condition
	From  From
}

// From is who may trigger: "people" (members and their devices, never
// agents), "anyone", or the listed names and keys.
type From struct {
	Kind  string   // people | anyone | list
	Names []string // for list: @name or npub
}

// ScheduleTrigger is one cron entry.
type ScheduleTrigger struct {
	Pos      Pos
	Schedule *schedule.Schedule
	MaxLate  time.Duration
}

// WebhookTrigger starts a run on a verified delivery to the workflow's hook.
type WebhookTrigger struct{}

// ManualTrigger starts a run on request (hive workflow run, /run, a button).
type ManualTrigger struct {
	RunBy  From // people (members) | admins | list
	Inputs []Input
}

// Input is a typed input of a manual run.
type Input struct {
	Name        string
	Type        string // string | boolean | number | choice
	Required    bool
	Default     any // string, bool or float64; nil for none
	Options     []string
	Description string
}

// Step is one step; exactly one of its action fields is set.
type Step struct {
	Pos             Pos
	ID              string
	Name            string
	If              *Condition
	Timeout         time.Duration
	ContinueOnError bool
	Action          string // the action's key: post, dm, …

	Post     *Post
	DM       *DM
	React    *React
	AskAgent *AskAgent
	Approval *Approval
	Wait     *Wait
	SetTopic *SetTopic
	HTTP     *HTTP
}

// Condition is a compiled boolean expression (if:, when:).
type Condition struct {
	Pos     Pos
	Source  string
	Program *expression.Program
}

// Text is a string with ${{ }} expressions, compiled.
type Text struct {
	Pos      Pos
	Template *expression.Template
}

// Post posts a message in the channel (or the run's thread).
type Post struct {
	Text    Text
	In      string // channel | thread
	Mention []string
}

// DM sends a direct message.
type DM struct {
	To   string
	Text Text
}

// React reacts on the triggering message.
type React struct{ Emoji string }

// AskAgent mentions an agent in the run's thread and waits for its answer.
type AskAgent struct {
	Agent string
	Text  Text
}

// Approval waits for people to approve or deny.
type Approval struct {
	Approvers []string // owner | channel-admins | channel-owners | @name | npub
	Message   Text
	Timeout   time.Duration
	OnTimeout string // fail | deny | continue
	Min       int
	AllowSelf bool

	approverPos []Pos
}

// Wait waits for a duration or until a time.
type Wait struct {
	Duration time.Duration // 0 with Until
	Until    *expression.Program
}

// SetTopic sets the channel's topic.
type SetTopic struct{ Text Text }

// HTTP calls a URL; the only action where secrets are usable.
type HTTP struct {
	URL     Text
	Method  string
	Headers map[string]Text
	Body    *Text
}
