// Package summarize has a model the user runs (ollama, llama.cpp's server,
// vLLM, any OpenAI-compatible chat endpoint) write the registry's file
// summaries, so that this work costs no frontier-model tokens.
//
// The contract:
//   - Nothing is sent anywhere unless the user configured an endpoint and a
//     model; the caller decides what may be sent (sensitive, binary and
//     large files never are) and sends it redacted.
//   - A bad answer is not a summary: empty, cut off, far longer than the
//     file, not text, or repeating the prompt or the file is refused
//     (Judge), never handed on.
//   - Each file is its own request: an endpoint down, slow, rate limited or
//     answering garbage fails that file with an error that says which, and
//     the batch goes on (Run); a batch stops early only when the endpoint
//     cannot be reached several files in a row, or the token budget would
//     be passed, and says so for each file it did not send.
//   - Results reach the caller one at a time, on the goroutine that called
//     Run, as they finish: a summary finished before a cancellation is kept.
package summarize
