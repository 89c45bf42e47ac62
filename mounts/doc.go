// Package mounts is the local registry of tv checkouts
// ($XDG_STATE_HOME/tv/mounts.json). `tv workspace checkout` records each
// checkout here; `tv mcp local` reads it to offer every mounted checkout as
// a workspace. Entries whose directory no longer holds a manifest are
// dropped when the registry is read. The registry holds local paths, so it
// lives in the user's state directory and never inside a vault or checkout.
package mounts
