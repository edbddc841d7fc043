import t from 'tap'
import { escapeHtml, serializeForScript } from '../../shared/html.js'

const HOSTILE = '</script><script>alert(1)</script>'

t.test('serializeForScript cannot close or confuse a script element', async (t) => {
  const cases: Array<[value: unknown, mustNotContain: string[]]> = [
    [{ text: HOSTILE }, ['</script', '<script']],
    [{ text: '<!-- <script>' }, ['<!--', '<script']],
    [{ text: 'line\u2028separator\u2029paragraph' }, ['\u2028', '\u2029']],
    [['</SCRIPT>'], ['</SCRIPT']],
  ]
  for (const [value, forbidden] of cases) {
    const json = serializeForScript(value)
    for (const text of forbidden) t.notOk(json.includes(text), `${JSON.stringify(value)} has no ${JSON.stringify(text)}`)
    t.same(JSON.parse(json), value, 'and it parses back to the same value')
  }
})

t.test('escapeHtml escapes every character that matters in text and attributes', async (t) => {
  t.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
  t.equal(escapeHtml('plain'), 'plain')
})
