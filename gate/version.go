package gate

// Version is codewhale-ls's own version. The Codewhale releases whose
// behaviour the gate reproduces are listed in gate/release.
const Version = "0.1.0"
