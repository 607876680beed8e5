package kinds

import "slices"

// The status tag values of an agent receipt (kind Receipt): where the
// agent's answer to a mention stands (spec/agents.md, "Receipts").
const (
	ReceiptQueued      = "queued"
	ReceiptWorking     = "working"
	ReceiptAnswered    = "answered"
	ReceiptFailed      = "failed"
	ReceiptNotAnswered = "not-answered"
)

// ReceiptStatuses lists the status values, in the order a mention's
// receipts may follow.
func ReceiptStatuses() []string {
	return []string{ReceiptQueued, ReceiptWorking, ReceiptAnswered, ReceiptFailed, ReceiptNotAnswered}
}

// ValidReceiptStatus reports whether s is a status value.
func ValidReceiptStatus(s string) bool { return slices.Contains(ReceiptStatuses(), s) }

// ReceiptFinal reports whether s ends a mention's receipts.
func ReceiptFinal(s string) bool {
	return s == ReceiptAnswered || s == ReceiptFailed || s == ReceiptNotAnswered
}
