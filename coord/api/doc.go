// Package api holds the request and response bodies of the checkpoint
// coordinator's HTTP API (api/openapi.yaml), shared by coord/server and
// coord/client so that a client does not link the server: keys in
// snake_case with the unit as suffix (_s, _bytes, _bps), views of the
// core's types (whose json names are the database's), the error codes and
// their HTTP statuses (Code.Status), and one-line texts. O(1).
package api
