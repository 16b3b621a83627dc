// Package agenttest is a scripted stand-in for a model API, for driving the
// real coding agents (Claude Code, Codex) in tests: it listens on
// 127.0.0.1 only, answers each request of the agent's main loop with the
// next step of a script (tool calls, then a final text), answers every
// other request (titles, summaries) with a short text, and logs every
// request body so a test can assert on what the model was sent.
//
// Chat is the same for an OpenAI-compatible chat completions endpoint, the
// kind a user's local model serves: each answer (streamed or whole, an
// error status, garbage, a stall) is scripted per request.
package agenttest
