// Package transport is how LSP messages cross stdin and stdout: the
// Content-Length framing read in bounded memory (a frame over 64 MiB, a
// header line over 1 KiB or a header block over 8 KiB is skipped, and
// reading resynchronises on the next Content-Length header), the Stream
// handed to go.lsp.dev/jsonrpc2 (which skips what does not decode and
// reads an ambiguous response as an error), the writer that batches
// messages queued while a write is in the kernel, and the Codec. It is
// the transport of the handler chain in docs/codewhale/deps.md Appendix A2;
// rpc builds the connection on it (docs/architecture.md).
package transport
