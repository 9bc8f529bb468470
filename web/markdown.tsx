import type { ComponentChildren } from 'preact';

/**
 * The markdown moon writes (daily files, MEMORY.md, projections) as elements: headings, lists, fenced code,
 * quotes, paragraphs, `code`, **bold** and links. Built as elements, never as HTML text, so nothing in a file —
 * a transcript quoting `<script>` — can become markup.
 */
export function Markdown({ text }: { text: string }) {
  const blocks: ComponentChildren[] = [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let at = 0;
  // Frontmatter is the file's metadata, shown as it is.
  if (lines[0] === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) {
      blocks.push(<pre key="fm">{lines.slice(1, end).join('\n')}</pre>);
      at = end + 1;
    }
  }
  while (at < lines.length) {
    const line = lines[at]!;
    if (line.trim() === '') {
      at += 1;
      continue;
    }
    if (line.startsWith('```')) {
      const end = lines.findIndex((next, index) => index > at && next.startsWith('```'));
      const stop = end < 0 ? lines.length : end;
      blocks.push(<pre key={at}>{lines.slice(at + 1, stop).join('\n')}</pre>);
      at = stop + 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(heading[1]!.length + 1, 6);
      const Tag = `h${level}` as 'h2';
      blocks.push(<Tag key={at}>{inline(heading[2]!)}</Tag>);
      at += 1;
      continue;
    }
    if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      const items: string[] = [];
      while (at < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[at]!)) {
        items.push(lines[at]!.replace(/^\s*([-*+]|\d+\.)\s+/, ''));
        at += 1;
      }
      blocks.push(
        <ul key={at}>
          {items.map((item, index) => (
            <li key={index}>{inline(item)}</li>
          ))}
        </ul>,
      );
      continue;
    }
    if (line.startsWith('>')) {
      const quoted: string[] = [];
      while (at < lines.length && lines[at]!.startsWith('>')) quoted.push(lines[at++]!.replace(/^>\s?/, ''));
      blocks.push(<blockquote key={at}>{inline(quoted.join(' '))}</blockquote>);
      continue;
    }
    const paragraph: string[] = [];
    while (at < lines.length && lines[at]!.trim() !== '' && !/^(#{1,6}\s|```|>|\s*([-*+]|\d+\.)\s)/.test(lines[at]!)) paragraph.push(lines[at++]!);
    blocks.push(<p key={at}>{inline(paragraph.join(' '))}</p>);
  }
  return <div class="markdown">{blocks}</div>;
}

/** `code`, **bold** and [text](http…) links within a line; everything else is text. */
function inline(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push(text.slice(last, match.index));
    if (match[1] !== undefined) parts.push(<code>{match[1]}</code>);
    else if (match[2] !== undefined) parts.push(<strong>{match[2]}</strong>);
    else parts.push(<a href={match[4]} rel="noreferrer noopener" target="_blank">{match[3]}</a>);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}
