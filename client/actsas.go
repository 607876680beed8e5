package client

import "context"

// ActsAs is the member pk acts as: a paired device's owner (its profile's
// attestation says so), else pk itself ("" stays "").
func (c *Client) ActsAs(ctx context.Context, pk string) (string, error) {
	if pk == "" {
		return "", nil
	}
	owner, device, err := c.OwnerOf(ctx, pk)
	if err != nil || !device {
		return pk, err
	}
	return owner, nil
}
