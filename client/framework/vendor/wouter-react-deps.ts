/**
 * wouter's `./react-deps.js`, aliased here by scripts/build.ts: its computed read
 * `React["useInsertion" + "Effect"]` made the bundler copy React's whole namespace
 * into the first-load script.
 */
import { useInsertionEffect, useLayoutEffect, useRef } from 'react'

export {
  useMemo,
  useRef,
  useState,
  useContext,
  createContext,
  isValidElement,
  cloneElement,
  createElement,
  Fragment,
  forwardRef,
  useSyncExternalStore,
  useInsertionEffect,
} from 'react'

/** The browser build only: what wouter's isomorphic choice picks there. */
export const useIsomorphicLayoutEffect = useLayoutEffect

export const useEvent = <A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) => {
  type Pair = [latest: (...args: A) => R, stable: (...args: A) => R]
  const ref: Pair = useRef<Pair>([fn, (...args: A): R => ref[0](...args)]).current
  useInsertionEffect(() => {
    ref[0] = fn
  })
  return ref[1]
}
