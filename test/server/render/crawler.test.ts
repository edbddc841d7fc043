/** Who gets a page with every deferred part in place: crawlers and link previews, told by their user agent. */
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { isCrawler } from '../../../server/framework/render/deferred-response.js'

const asked = (agent: string | undefined) => isCrawler({ headers: agent === undefined ? {} : { 'user-agent': agent } } as FastifyRequest)

t.test('crawlers and link previews', async (t) => {
  for (const agent of [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Twitterbot/1.0',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    'WhatsApp/2.23.20.0',
  ]) {
    t.ok(asked(agent), agent)
  }
})

t.test('browsers, phones named like bots included, stream', async (t) => {
  for (const agent of [
    undefined,
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Linux; Android 10; CUBOT KINGKONG 5 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
    'Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0 Mobile Safari/537.36',
  ]) {
    t.notOk(asked(agent), String(agent))
  }
})
