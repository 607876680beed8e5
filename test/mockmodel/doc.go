// Package mockmodel mocks the model APIs that real ACP adapters call, so the
// bridge tests can run claude-agent-acp, codex-acp and gemini-cli through
// full turns with no credentials, on 127.0.0.1:
//
//   - Anthropic: POST /v1/messages (streaming SSE or JSON) and
//     /v1/messages/count_tokens, for claude-agent-acp (ANTHROPIC_BASE_URL).
//   - OpenAI: POST /v1/responses (streaming SSE), for codex-acp (a custom
//     model provider in CODEX_HOME/config.toml).
//   - Gemini: POST /v1beta/models/MODEL:generateContent and
//     :streamGenerateContent (SSE), for gemini-cli (GOOGLE_GEMINI_BASE_URL).
//
// All answer the same way: a turn whose newest user text contains
// "[[shell]]" (and that offers a shell tool) is answered with a tool call
// running ShellCommand; the request carrying that call's output is answered
// with "the command ran". Everything else is answered with Text. The OpenAI
// mock also answers "[[recall]]" with the [[remember:WORD]] cues of the
// conversation it was sent. The Anthropic mock answers "[[say:WORD]]" with
// WORD, and pauses mid-answer for "[[slow:DUR]]".
package mockmodel
