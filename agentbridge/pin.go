package agentbridge

import (
	"context"
	"errors"

	acp "github.com/coder/acp-go-sdk"
)

// methodNotFound is JSON-RPC's code for a method the peer does not have.
const methodNotFound = -32601

// setModel pins model with session/set_model. An agent that does not have
// that method (codex-acp 0.16.0 answers -32601) gets session/set_config_option
// on the select option of category "model" that its session/new or
// session/load listed; without one, the set_model error stands.
func setModel(ctx context.Context, p *agentProc, session, model string, opts []acp.SessionConfigOption) error {
	_, err := p.conn.UnstableSetSessionModel(ctx, acp.UnstableSetSessionModelRequest{SessionId: acp.SessionId(session), ModelId: acp.UnstableModelId(model)})
	var re *acp.RequestError
	if err == nil || !errors.As(err, &re) || re.Code != methodNotFound {
		return err
	}
	for _, o := range opts {
		if s := o.Select; s != nil && s.Category != nil && *s.Category == acp.SessionConfigOptionCategoryModel {
			_, err := p.conn.SetSessionConfigOption(ctx, acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
				SessionId: acp.SessionId(session), ConfigId: s.Id, Value: acp.SessionConfigValueId(model)}})
			return err
		}
	}
	return err
}
