/**
 * readListBody decodes a list response (`{"kind":…,"metadata":{…},"items":[…]}`) as its body
 * streams in: each element of `items` is parsed on its own (native JSON.parse of its text) and
 * handed to `onItem` as soon as its last byte arrives, then let go; the other top-level fields are
 * parsed whole (the list's metadata: continue token, resourceVersion) and returned. What it holds
 * at once is the current item's text plus one chunk, never the page: a page of 5,000 pods of
 * 1 MiB each costs one pod's text and its parse, not 5 GB (JSON.parse of the page would
 * materialise every byte of every item before the caller could drop any).
 *
 * The scanner only finds where each top-level value and each item starts and ends (strings,
 * brackets, commas, colons): JSON.parse still validates every item. Outside strings it is a
 * loop over char codes that allocates nothing; strings are skipped with indexOf. Malformed JSON throws a SyntaxError (as res.json() would).
 */

/** The structural characters the scanner stops at outside strings. */
const [QUOTE, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, CLOSE_BRACE, CLOSE_BRACKET] = ['"', ":", ",", "{", "[", "}", "]"].map((ch) => ch.charCodeAt(0));

/** ListScanner is the state of one body being scanned (exported for tests: feed() text in any cut). */
export class ListScanner {
  /** Text not consumed yet: from `keep` on (an element, value or key being read). */
  private text = "";
  /** Where scanning resumes in `text`. */
  private pos = 0;
  private depth = 0;
  private inString = false;
  /** Start (in `text`) of the string being read, the top-level value, or the item; -1 when none. */
  private stringStart = -1;
  private valueStart = -1;
  private itemStart = -1;
  /** At depth 1: the key just read, and whether a value (after `:`) is being read. */
  private key: string | undefined;
  private inValue = false;
  private inItems = false;
  private readonly top: Record<string, unknown> = {};

  constructor(private readonly onItem: (item: unknown) => void) {}

  /** heldChars returns the length of the text held now (the item, value or key being read and what follows it). */
  get heldChars(): number {
    return this.text.length;
  }

  /** feed scans more text, handing each item completed within it to onItem. */
  feed(chunk: string): void {
    const keep = Math.min(...[this.stringStart, this.valueStart, this.itemStart, this.pos].filter((i) => i >= 0));
    // Joined, not concatenated: a flat string (a concatenation is a rope, whose char codes V8 reads far slower).
    this.text = [this.text.slice(keep), chunk].join("");
    this.pos -= keep;
    if (this.stringStart >= 0) this.stringStart -= keep;
    if (this.valueStart >= 0) this.valueStart -= keep;
    if (this.itemStart >= 0) this.itemStart -= keep;
    this.scan();
  }

  /** end returns the top-level fields but `items`; throws when the document is incomplete. */
  end(): Record<string, unknown> {
    if (this.depth !== 0 || this.inString || this.text.slice(this.pos).trim() !== "") throw new SyntaxError("list body ended before its JSON did");
    return this.top;
  }

  private scan(): void {
    const t = this.text;
    const n = t.length;
    let i = this.pos;
    while (i < n) {
      if (this.inString) {
        const close = stringEnd(t, i);
        if (close < 0) {
          i = n;
          break;
        }
        this.inString = false;
        i = close + 1;
        // A key at depth 1 (not inside a value) is kept: the value after it is items or not.
        if (this.depth === 1 && !this.inValue) this.key = JSON.parse(t.slice(this.stringStart, close + 1)) as string;
        this.stringStart = -1;
        continue;
      }
      // A tight loop over char codes (no allocation): most of a body is inside strings, skipped above by indexOf.
      const c = t.charCodeAt(i);
      if (c === QUOTE || c === COLON || c === COMMA || c === OPEN_BRACE || c === OPEN_BRACKET || c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.pos = i + 1;
        this.structural(c, i);
        i = this.pos;
      } else i++;
    }
    this.pos = i;
  }

  private structural(c: number, at: number): void {
    switch (c) {
      case QUOTE:
        this.inString = true;
        this.stringStart = at;
        return;
      case COLON:
        if (this.depth === 1 && !this.inValue) {
          this.inValue = true;
          this.valueStart = at + 1;
        }
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        this.depth++;
        if (this.depth === 2 && this.inValue && this.key === "items" && c === OPEN_BRACKET) {
          this.inItems = true;
          this.valueStart = -1;
          this.itemStart = at + 1;
        }
        return;
      case COMMA:
        if (this.inItems && this.depth === 2) this.item(at);
        else if (this.depth === 1) this.value(at);
        return;
      default:
        // A closing brace or bracket.
        if (this.inItems && this.depth === 2 && c === CLOSE_BRACKET) {
          this.item(at);
          this.inItems = false;
          this.itemStart = -1;
        } else if (this.depth === 1 && c === CLOSE_BRACE) this.value(at);
        this.depth--;
        if (this.depth < 0) throw new SyntaxError(`unexpected ${String.fromCharCode(c)} in list body`);
    }
  }

  /** item parses the item that ends before `at` (a comma or the closing bracket) and hands it on. */
  private item(at: number): void {
    const s = this.text.slice(this.itemStart, at);
    this.itemStart = at + 1;
    if (s.trim() === "") return;
    this.onItem(JSON.parse(s));
  }

  /** value parses the top-level value that ends before `at` (items was handed on already). */
  private value(at: number): void {
    if (this.inValue && this.key !== undefined && this.valueStart >= 0) this.top[this.key] = JSON.parse(this.text.slice(this.valueStart, at));
    this.inValue = false;
    this.valueStart = -1;
    this.key = undefined;
  }
}

/** stringEnd returns the index of the quote that closes the string whose body starts at or before `from` (-1: not in the text yet). */
function stringEnd(t: string, from: number): number {
  for (let i = t.indexOf('"', from); i >= 0; i = t.indexOf('"', i + 1)) {
    let slashes = 0;
    while (t.charCodeAt(i - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return i;
  }
  return -1;
}

/** readListBody scans a list response's body (see above) and returns its top-level fields but `items`. */
export async function readListBody(body: ReadableStream<Uint8Array> | null, onItem: (item: unknown) => void): Promise<Record<string, unknown>> {
  const scanner = new ListScanner(onItem);
  if (!body) return scanner.end();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      scanner.feed(decoder.decode(value, { stream: true }));
    }
    scanner.feed(decoder.decode());
  } catch (e) {
    // A body not read to its end (onItem threw: a budget; a malformed body) is cancelled, so its connection is let go.
    await reader.cancel(e).catch(() => undefined);
    throw e;
  } finally {
    reader.releaseLock();
  }
  return scanner.end();
}
