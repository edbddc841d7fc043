import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { BuildManifest } from '../../shared/framework/build-manifest.js'

export class ManifestError extends Error {
  override name = 'ManifestError'
}

/** Once, at start; a missing build fails loudly. */
export function readManifest(clientDir: string): BuildManifest {
  const file = path.join(clientDir, 'manifest.json')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new ManifestError(`No client build at ${clientDir} (missing manifest.json): run "npm run build" first`)
  }
  let manifest: BuildManifest
  try {
    manifest = JSON.parse(text) as BuildManifest
  } catch {
    throw new ManifestError(`${file} is not a build manifest (not JSON)`)
  }
  if (typeof manifest?.buildId !== 'string' || !manifest.entry?.file) {
    throw new ManifestError(`${file} is not a build manifest`)
  }
  return manifest
}
