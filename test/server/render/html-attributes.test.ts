/**
 * The root layout's `documentAttributes` reach `<html>` escaped, and a name the
 * framework does not write there is refused by name rather than breaking the document.
 */
import t from 'tap'
import { htmlAttributes } from '../../../server/framework/render/document.js'

t.test('values are escaped; no attributes, no text', async (t) => {
  t.equal(htmlAttributes({ 'data-theme': 'dark' }), ' data-theme="dark"')
  t.equal(htmlAttributes({ 'data-x': '"><script>' }), ' data-x="&quot;&gt;&lt;script&gt;"')
  t.equal(htmlAttributes(undefined), '')
})

t.test("lang (the framework's), upper case and broken names throw, naming the name", async (t) => {
  t.throws(() => htmlAttributes({ lang: 'fr' }), /"lang" cannot go on <html>/)
  t.throws(() => htmlAttributes({ 'Data-Theme': 'dark' }), /"Data-Theme" cannot go on <html>/)
  t.throws(() => htmlAttributes({ 'x onload': '1' }), /"x onload" cannot go on <html>/)
})
