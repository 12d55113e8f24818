// Package untrusted makes text llmgate did not write safe to publish.
//
// llmgate runs in CI next to a write token, an HF_TOKEN and API keys, and it
// prints, writes and posts text that comes from servers, container logs and
// suites. A Masker replaces every secret llmgate knows (and the common token
// shapes) with "***"; Text, Line and Markdown neutralise what such text could
// do where it lands: terminal escapes and control characters, GitHub
// workflow commands at the start of a line, and markdown or HTML that would
// add images, mentions, links or llmgate's own comment marker.
//
// String is such text on its way to a sink: it cannot be joined to
// llmgate's own strings without a conversion, so each sink says how it
// escapes it (Line, Markdown, Code), and fmt prints its safe line.
//
// The process's masker is installed with Use; Mask and the helpers that call
// it apply the installed one, so code far from the command line (the load
// engine, the target's log tails, the results writer) masks what it records
// without being handed the secrets.
package untrusted
