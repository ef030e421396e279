package server

import (
	"testing"
)

func TestCheckListen(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:7070": true, "[::1]:7070": true, "localhost:1": true,
		"0.0.0.0:7070": false, ":7070": false, "10.0.0.1:80": false, "nonsense": false} {
		if err := CheckListen(addr, false); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
	if err := CheckListen("0.0.0.0:7070", true); err != nil {
		t.Error(err)
	}
}
