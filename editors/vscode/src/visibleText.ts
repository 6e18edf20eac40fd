// Text from the server as the approval card may draw it. No `vscode`
// import, so the unit tests run under plain `node --test`.
//
// The server already sends every value escaped (docs/codewhale/contract.md
// §4, ApprovalPrompt `inputs`): newlines as `⏎` and a line break, anything
// that is not printable ASCII as `⟪NAME U+XXXX⟫`. This is the second
// line: whatever still reaches the webview that a browser would draw as
// nothing, as a space, or by reordering the text around it (a server bug,
// an older server) becomes a visible escape in the same notation, so
// `ls ⁧⁦; bash -c …⁩⁦ #⁩⁩` can never be drawn as `ls #; bash -c …`.

/** Short names for the characters most used to disguise text. */
const names: Record<number, string> = {
  0x00: 'NUL', 0x07: 'BEL', 0x08: 'BS', 0x09: 'TAB', 0x0b: 'VT', 0x0c: 'FF', 0x0d: 'CR', 0x1b: 'ESC', 0x7f: 'DEL',
  0x85: 'NEL', 0xa0: 'NBSP', 0xad: 'SHY', 0x061c: 'ALM', 0x180e: 'MVS',
  0x200b: 'ZWSP', 0x200c: 'ZWNJ', 0x200d: 'ZWJ', 0x200e: 'LRM', 0x200f: 'RLM',
  0x2028: 'LSEP', 0x2029: 'PSEP',
  0x202a: 'LRE', 0x202b: 'RLE', 0x202c: 'PDF', 0x202d: 'LRO', 0x202e: 'RLO', 0x202f: 'NNBSP',
  0x2060: 'WJ', 0x2066: 'LRI', 0x2067: 'RLI', 0x2068: 'FSI', 0x2069: 'PDI',
  0x3000: 'IDSP', 0xfeff: 'BOM',
};

/**
 * Letters that are drawn as blanks although Unicode files them as letters
 * or symbols (Hangul fillers, Khmer inherent vowels, the braille blank).
 */
const blankLetters = new Set([0x115f, 0x1160, 0x17b4, 0x17b5, 0x2800, 0x3164, 0xffa0]);

/**
 * Controls, format characters (direction controls, zero-width ones, tags),
 * separators other than the space, combining marks (they draw on the
 * character before them), private-use, unassigned and lone surrogates.
 */
const invisible = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Z}\p{M}]/u;

function hex(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
}

/** The escape for one character, in the server's notation. */
export function escapeFor(cp: number): string {
  const name = names[cp];
  return '⟪' + (name ? name + ' ' : '') + hex(cp) + '⟫';
}

function needsEscape(ch: string, cp: number): boolean {
  if (cp === 0x20) {
    return false;
  }
  return blankLetters.has(cp) || invisible.test(ch);
}

export interface VisibleText {
  text: string;
  /** Characters this function escaped (the server's own escapes not counted). */
  escaped: number;
}

/**
 * text with every invisible or reordering character as a visible escape
 * and every line break marked `⏎` (once: the server's `⏎\n` stays as it
 * is). Visible characters, the server's `⟪…⟫` escapes included, are kept.
 */
export function visibleText(text: string, markNewlines = true): VisibleText {
  let out = '';
  let escaped = 0;
  let previous = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '\n') {
      if (markNewlines && previous !== '⏎') {
        out += '⏎';
      }
      out += '\n';
    } else if (needsEscape(ch, cp)) {
      out += escapeFor(cp);
      escaped++;
    } else {
      out += ch;
    }
    previous = ch;
  }
  return { text: out, escaped };
}

/**
 * visibleText's text alone, for the card's short lines; markNewlines
 * false for text whose line breaks are its own layout (the TOML a grant
 * would save, shown exactly as it would be written).
 */
export function visible(text: string, markNewlines = true): string {
  return visibleText(text, markNewlines).text;
}
