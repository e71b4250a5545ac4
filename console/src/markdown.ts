/**
 * Stands in for codemirror-json-schema's `utils/markdown` (console/build.ts swaps it in): the same markdown-it
 * rendering of hover docs, completion details and lint messages, without the Shiki code highlighter it loads at
 * start, which would be most of the bundle for no code block the schema has. `html: false`: text is escaped.
 */
import MarkdownIt from 'markdown-it';

const renderer = new MarkdownIt({ linkify: true, typographer: true });

/** Markdown as HTML: inline by default, as blocks with `inline` false. */
export function renderMarkdown(markdown: string, inline = true): string {
  return inline ? renderer.renderInline(markdown) : renderer.render(markdown);
}
