// Package api holds the request and response bodies of the checkpoint
// coordinator's HTTP API (api/openapi.yaml), shared by coord/server and
// coord/client so that a client does not link the server. No logic beyond
// the views; O(1).
package api
