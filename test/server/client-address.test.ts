import t from 'tap'
import { clientAddressKey } from '../../server/framework/client-address.js'

t.test('the key a client address is counted under', async (t) => {
  const cases: Array<[reported: string, key: string]> = [
    ['203.0.113.5', '203.0.113.5'],
    ['203.0.113.5:41234', '203.0.113.5'],
    [' 203.0.113.5 ', '203.0.113.5'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['[2001:db8::1]:443', '2001:db8:0:0::/64'],
    ['2001:DB8:0:0:ffff::1', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['::ffff:cb00:7105', '203.0.113.5'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['unknown', 'unknown'],
    ['NOT-AN-ADDRESS:1:2', 'not-an-address:1:2'],
  ]
  for (const [reported, key] of cases) t.equal(clientAddressKey(reported), key, reported)
})
