package pairing

import (
	"encoding/hex"
	"testing"
)

// The published NIP-AB v1 test vectors (NIP-AB.md, "Test Vectors").
const (
	vecSecret     = "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2"
	vecSourceSK   = "7f4c11a9c9d1e3b5a7f2e4d6c8b0a2f4e6d8c0b2a4f6e8d0c2b4a6f8e0d2c4b5"
	vecSourcePK   = "199e64ca60662cb2d6e91d16cb065be51ad74a6ee5f8c5b0fdc53d246611ed9a"
	vecTargetSK   = "3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b"
	vecTargetPK   = "89a9fa762105d0aee2b19678246fe7b823aabbc4f4bf691a1ce8a70fcd36d6e4"
	vecSessionID  = "fb357d0f8e8d5a5ba3b2a91cb18c119e1567b07ffa38cdebb73e68df78f5a380"
	vecECDH       = "9b4b6d6990713d89d6d9982e506ee1bbcde6f05c54d9d2978696e8a7274d4408"
	vecSASInput   = "e8b03a329f3a0ac37fe7fbe929171e14b72812be67e33c5d6e193543c41798d3"
	vecSAS        = "863346"
	vecTranscript = "d662818ff8911fc60a2d025f8b8b4756107104e85888dd202d28db5ca2cf28d3"
)

func h32(t *testing.T, s string) [32]byte {
	t.Helper()
	b, ok := parseHex32(s)
	if !ok {
		t.Fatalf("bad hex %q", s)
	}
	return b
}

func TestVectors(t *testing.T) {
	secret, srcSK, tgtSK := h32(t, vecSecret), h32(t, vecSourceSK), h32(t, vecTargetSK)
	srcPK, err := PublicKey(srcSK)
	if err != nil {
		t.Fatal(err)
	}
	tgtPK, err := PublicKey(tgtSK)
	if err != nil {
		t.Fatal(err)
	}
	ecdhST, err := ECDH(srcSK, tgtPK)
	if err != nil {
		t.Fatal(err)
	}
	ecdhTS, err := ECDH(tgtSK, srcPK)
	if err != nil {
		t.Fatal(err)
	}
	sid := SessionID(secret)
	sasIn := SASInput(ecdhST, secret)
	th := TranscriptHash(sid, srcPK, tgtPK, sasIn, secret)
	for _, c := range []struct{ name, got, want string }{
		{"source pubkey", hex.EncodeToString(srcPK[:]), vecSourcePK},
		{"target pubkey", hex.EncodeToString(tgtPK[:]), vecTargetPK},
		{"session_id", hex.EncodeToString(sid[:]), vecSessionID},
		{"ecdh (source side)", hex.EncodeToString(ecdhST[:]), vecECDH},
		{"ecdh (target side)", hex.EncodeToString(ecdhTS[:]), vecECDH},
		{"sas_input", hex.EncodeToString(sasIn[:]), vecSASInput},
		{"sas", SASCode(sasIn), vecSAS},
		{"transcript_hash", hex.EncodeToString(th[:]), vecTranscript},
	} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestSASCodePadding(t *testing.T) {
	var in [32]byte // 0 mod 1e6
	if got := SASCode(in); got != "000000" {
		t.Fatalf("SASCode(0) = %q", got)
	}
	in[0], in[1], in[2], in[3] = 0xff, 0xff, 0xff, 0xff // 4294967295 % 1e6 = 967295
	if got := SASCode(in); got != "967295" {
		t.Fatalf("SASCode(max) = %q", got)
	}
}

func TestECDHRejectsOffCurve(t *testing.T) {
	var sk, bad [32]byte
	sk[31] = 1
	bad[0] = 0xff // x >= p is not a field element
	for i := range bad {
		bad[i] = 0xff
	}
	if _, err := ECDH(sk, bad); err == nil {
		t.Fatal("ECDH accepted an x-coordinate off the curve")
	}
	if _, err := ECDH([32]byte{}, bad); err == nil {
		t.Fatal("ECDH accepted a zero secret key")
	}
}
