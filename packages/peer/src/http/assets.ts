import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** The dashboard's files (the same path from `src/http` and `dist/http`). */
export const DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/', import.meta.url))

const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'render.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8'
}

/** The files the dashboard is made of; nothing else is served from disk. */
export const DASHBOARD_FILES = Object.keys(TYPES)

/** Reads one dashboard file (cached after the first read). */
export function dashboardAssets (dir = DASHBOARD_DIR): (name: string) => Promise<{ type: string, body: Buffer } | undefined> {
  const cache = new Map<string, Buffer>()
  return async (name) => {
    if (!Object.hasOwn(TYPES, name)) return undefined
    const type = TYPES[name]
    let body = cache.get(name)
    if (body == null) {
      body = await readFile(dir + name)
      cache.set(name, body)
    }
    return { type, body }
  }
}
