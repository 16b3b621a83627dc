// Package integrate wires freshctx into coding agents: it merges the MCP
// server and hooks into their configuration files — never dropping a key
// that is there, and changing nothing on a second run — and answers Claude
// Code's hooks.
package integrate
