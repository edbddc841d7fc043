/**
 * `npm run dev` only: the page the supervisor (scripts/dev.ts) answers with while the
 * development server cannot run (a syntax error saved in server/, a module that throws
 * as it loads): what failed, where (the file, the line, the lines around it) and the
 * stack, as Vite's overlay shows a client error. A script on the page asks the port
 * every half second whether this failure still holds it, and reloads the page once
 * something else answers: the server back, or the page of the next failure.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { escapeHtml, serializeForScript } from '../shared/framework/html.js'

/** What the server's process said about its end (scripts/dev-server-failure.ts), if anything. */
export interface ServerError {
  readonly message: string
  readonly stack?: string | undefined
}

export interface ServerFailure {
  /** The error that ended the process; none when it exited on its own (a bad config). */
  readonly error: ServerError | undefined
  /** Whether the process had been answering before it ended. */
  readonly wasReady: boolean
  /** `code 1`, `SIGKILL`. */
  readonly exit: string
}

/** The answer to Vite's ping header names the failure shown, so a page can tell it from the next one. */
export const FAILURE_HEADER = 'x-development-failure'

const FRAME_LINES = 2

/** The first `file:line:col` of the project's own code in the text (a path or a file URL), relative to `root`. */
function locate(root: string, text: string): { file: string; line: number; column: number } | undefined {
  for (const [, file, line, column] of text.matchAll(/(?:file:\/\/)?(\/[^\s():]+):(\d+):(\d+)/g)) {
    const relative = path.relative(root, file!)
    if (relative.startsWith('..') || path.isAbsolute(relative) || relative.split(path.sep).includes('node_modules')) continue
    return { file: relative, line: Number(line), column: Number(column) }
  }
  return undefined
}

/** The lines around `line` of the file as it is now, the failing one marked. */
function codeFrame(root: string, file: string, line: number): string | undefined {
  let source: string
  try {
    source = readFileSync(path.join(root, file), 'utf8')
  } catch {
    return undefined // removed since
  }
  const lines = source.split('\n')
  const first = Math.max(1, line - FRAME_LINES)
  const last = Math.min(lines.length, line + FRAME_LINES)
  const width = String(last).length
  const numbered = []
  for (let n = first; n <= last; n++) numbered.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1]}`)
  return numbered.join('\n')
}

/** The project's paths (and file URLs) in `text` written relative to it. */
function relative(root: string, text: string): string {
  return text
    .split(`${pathToFileURL(root).href}/`)
    .join('')
    .split(root + path.sep)
    .join('')
}

/** A stack without the message it starts with (the page shows that above it). */
function framesOf(stack: string, message: string): string {
  const start = stack.indexOf(message)
  // The rest of the message's last line goes too, the frames' indentation stays.
  return (start === -1 ? stack : stack.slice(start + message.length).replace(/^[^\n]*\n?/, '')).trimEnd()
}

const STYLE =
  'body{margin:0;background:#181818;color:#d8d8d8;font:14px/1.5 ui-monospace,Menlo,Consolas,monospace}' +
  'main{max-width:960px;margin:40px auto;padding:24px 32px;border-top:8px solid #ff5555;background:#222}' +
  'h1{font-size:16px;margin:0 0 16px}pre{white-space:pre-wrap;overflow-x:auto;margin:0 0 16px}' +
  '.message{color:#ff5555;font-weight:600}.file{color:#2dd9da}.frame{color:#e2aa53}.stack{color:#c9c9c9}.tip{color:#999}'

function script(id: string): string {
  return (
    `const shown = ${serializeForScript(id)};` +
    'async function poll() {' +
    "  try { const answer = await fetch('/', { headers: { Accept: 'text/x-vite-ping' }, cache: 'no-store' });" +
    `    if (answer.headers.get(${serializeForScript(FAILURE_HEADER)}) !== shown) return location.reload() } catch {}` +
    '  setTimeout(poll, 500)' +
    '}' +
    'setTimeout(poll, 500)'
  )
}

export interface PageOptions {
  /** The project folder: paths are shown relative to it, and the frame read from it. */
  readonly root: string
  /** This failure's id, which the ping's answer carries. */
  readonly id: string
  /** The CSP nonce of the page's script and style. */
  readonly nonce: string
  /** Whether to show the error itself (a loopback Host), or only say where to look. */
  readonly detailed: boolean
}

/** The whole document. Every piece of the error is escaped: it may quote any source. */
export function renderFailurePage(failure: ServerFailure, { root, id, nonce, detailed }: PageOptions): string {
  const { error } = failure
  const heading = failure.wasReady ? `The development server stopped (${failure.exit})` : `The development server could not start (${failure.exit})`
  const message = error ? relative(root, error.message) : 'It exited without an error to show: the terminal says why.'
  const at = error && locate(root, `${error.message}\n${error.stack ?? ''}`)
  const stack = error?.stack ? relative(root, framesOf(error.stack, error.message)) : ''
  const frame = at && codeFrame(root, at.file, at.line)
  const body = detailed
    ? (at ? `<p class="file">${escapeHtml(`${at.file}:${at.line}:${at.column}`)}</p>` : '') +
      `<pre class="message">${escapeHtml(message)}</pre>` +
      (frame ? `<pre class="frame">${escapeHtml(frame)}</pre>` : '') +
      (stack ? `<pre class="stack">${escapeHtml(stack)}</pre>` : '')
    : '<pre class="message">The terminal that runs npm run dev shows the error.</pre>'
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>Server error</title><link rel="icon" href="data:,"><style nonce="${escapeHtml(nonce)}">${STYLE}</style></head>` +
    `<body><main><h1>${escapeHtml(heading)}</h1>${body}` +
    '<p class="tip">Save a fix: the server starts again, and this page reloads by itself once it answers.</p>' +
    `</main><script nonce="${escapeHtml(nonce)}">${script(id)}</script></body></html>`
  )
}
