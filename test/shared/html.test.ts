import t from 'tap'
import { escapeHtml, serializeForScript } from '../../shared/framework/html.js'

const HOSTILE = '</script><script>alert(1)</script>'

t.test('serializeForScript cannot close or confuse a script element', async (t) => {
  // Labels are plain ASCII: a raw U+2028 in a message would break the TAP stream.
  const cases: Array<[label: string, value: unknown, mustNotContain: string[]]> = [
    ['closing script tag', { text: HOSTILE }, ['</script', '<script']],
    ['HTML comment opener', { text: '<!-- <script>' }, ['<!--', '<script']],
    ['line and paragraph separators', { text: 'line\u2028separator\u2029paragraph' }, ['\u2028', '\u2029']],
    // Each alone, so each is found by its own check.
    ['line separator alone', { text: 'a\u2028b' }, ['\u2028']],
    ['paragraph separator alone', { text: 'a\u2029b' }, ['\u2029']],
    ['upper-case closing tag', ['</SCRIPT>'], ['</SCRIPT']],
  ]
  for (const [label, value, forbidden] of cases) {
    const json = serializeForScript(value)
    for (const text of forbidden) t.notOk(json.includes(text), `${label}: escaped`)
    t.same(JSON.parse(json), value, `${label}: parses back to the same value`)
  }
})

t.test('escapeHtml escapes every character that matters in text and attributes', async (t) => {
  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  t.equal(escapeHtml('plain'), 'plain')
})
