package workflow

// Keys are the keys each mapping of a definition may have, by the name
// spec/workflows.md's key table gives it; anything else is an error that
// lists them. (A step also has exactly one action: Actions.)
var Keys = map[string][]string{
	"workflow":  {"name", "channel", "description", "on", "concurrency", "steps"},
	"on":        {"message", "reaction", "schedule", "webhook", "manual"},
	"message":   {"when", "from", "threads"},
	"reaction":  {"emoji", "when", "from"},
	"schedule":  {"cron", "timezone", "max_late"},
	"webhook":   {},
	"manual":    {"run_by", "inputs"},
	"input":     {"type", "required", "default", "options", "description"},
	"step":      {"id", "name", "if", "timeout", "continue_on_error"},
	"post":      {"text", "in", "mention"},
	"dm":        {"to", "text"},
	"react":     {"emoji"},
	"ask_agent": {"agent", "text", "timeout"},
	"approval":  {"approvers", "message", "timeout", "on_timeout", "min", "allow_self"},
	"wait":      {"until"},
	"set_topic": {"text"},
	"http":      {"url", "method", "headers", "body"},
}

// Actions are a step's actions; a step has exactly one.
var Actions = []string{"post", "dm", "react", "ask_agent", "approval", "wait", "set_topic", "http"}

var (
	topKeys     = Keys["workflow"]
	triggerKeys = Keys["on"]
	stepKeys    = Keys["step"]
	inputKeys   = Keys["input"]
	actions     = Actions
)
