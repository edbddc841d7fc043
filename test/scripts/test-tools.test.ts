/**
 * How the test command finds a tool (scripts/test-tools.ts): the variable first, then the
 * tool's names in order of preference, each across the whole PATH before the next.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { CHROMIUM, ensureTool } from '../../scripts/test-tools.js'
import { newBuildDir } from '../helpers/build.js'

/** A folder holding an executable file for each of `names`. */
function folderWith(root: string, folder: string, ...names: string[]): string {
  const dir = path.join(root, folder)
  mkdirSync(dir)
  for (const name of names) {
    writeFileSync(path.join(dir, name), '#!/bin/sh\n')
    chmodSync(path.join(dir, name), 0o755)
  }
  return dir
}

t.test('Chromium: the headless shell in a later PATH folder wins over a full chromium in an earlier one', async (t) => {
  const root = newBuildDir('test-tools')
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const full = folderWith(root, 'local-bin', 'chromium', 'google-chrome')
  const shell = folderWith(root, 'bin', 'chromium-headless-shell')
  const saved = { PATH: process.env.PATH, CHROMIUM_PATH: process.env.CHROMIUM_PATH }
  t.teardown(() => {
    process.env.PATH = saved.PATH
    if (saved.CHROMIUM_PATH === undefined) delete process.env.CHROMIUM_PATH
    else process.env.CHROMIUM_PATH = saved.CHROMIUM_PATH
  })
  delete process.env.CHROMIUM_PATH
  process.env.PATH = [full, shell].join(path.delimiter)
  t.equal(ensureTool(CHROMIUM, ['a test']), path.join(shell, 'chromium-headless-shell'))

  process.env.PATH = full
  t.equal(ensureTool(CHROMIUM, ['a test']), path.join(full, 'chromium'), 'without the shell, a full chromium')

  process.env.CHROMIUM_PATH = path.join(full, 'google-chrome')
  process.env.PATH = [full, shell].join(path.delimiter)
  t.equal(ensureTool(CHROMIUM, ['a test']), path.join(full, 'google-chrome'), 'CHROMIUM_PATH before any search')
})
