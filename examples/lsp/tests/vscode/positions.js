'use strict';
// Positions as the editor side counts them: a JavaScript string is indexed
// in UTF-16 code units (the protocol's default); for UTF-8 and UTF-32 the
// characters of the line are counted in bytes or code points.

/** How many units `text` counts for in `encoding`. */
function measure(text, encoding) {
  switch (encoding) {
    case 'utf-8':
      return Buffer.byteLength(text, 'utf8');
    case 'utf-32':
      return Array.from(text).length;
    default:
      return text.length;
  }
}

/** The start (a string index) of each line; lines end at \n, \r\n or \r. */
function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i++;
      starts.push(i + 1);
    } else if (text[i] === '\n' || text[i] === '\r') {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The position of string index `index`. */
function positionAt(text, index, encoding) {
  const starts = lineStarts(text);
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= index) line++;
  return { line, character: measure(text.slice(starts[line], index), encoding) };
}

/** The string index of `position`. */
function indexAt(text, position, encoding) {
  const starts = lineStarts(text);
  let index = starts[position.line];
  let units = 0;
  for (const c of text.slice(index)) {
    if (units >= position.character || c === '\n' || c === '\r') break;
    units += measure(c, encoding);
    index += c.length;
  }
  return index;
}

/** The range of the `nth` (from 0) occurrence of `needle` in `text`. */
function rangeOf(text, needle, encoding, nth = 0) {
  let index = -1;
  for (let i = 0; i <= nth; i++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`no occurrence ${nth} of ${needle}`);
  }
  return {
    start: positionAt(text, index, encoding),
    end: positionAt(text, index + needle.length, encoding),
  };
}

/** `text` with the edit `{range, text}` (or `{range, newText}`) applied. */
function applyEdit(text, edit, encoding) {
  const start = indexAt(text, edit.range.start, encoding);
  const end = indexAt(text, edit.range.end, encoding);
  const insert = edit.newText !== undefined ? edit.newText : edit.text;
  return text.slice(0, start) + insert + text.slice(end);
}

/** `text` with several edits of one `WorkspaceEdit`, which do not overlap, applied from the last. */
function applyEdits(text, edits, encoding) {
  const ordered = [...edits].sort((a, b) =>
    b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character,
  );
  return ordered.reduce((current, edit) => applyEdit(current, edit, encoding), text);
}

module.exports = { measure, positionAt, indexAt, rangeOf, applyEdit, applyEdits };
