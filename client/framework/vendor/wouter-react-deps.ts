/**
 * What the client build gives wouter for its `./react-deps.js` (scripts/build.ts points
 * it here): the same names, from React 19 directly. wouter's own module reads
 * `React["useInsertion" + "Effect"]` for React before 18, and that computed read of
 * `import * as React` makes the bundler copy React's whole namespace into an object of
 * its own in the first-load script.
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

/** The browser build only: a layout effect is what wouter's isomorphic choice picks there. */
export const useIsomorphicLayoutEffect = useLayoutEffect

/** wouter's `useEvent` (a stable callback that calls the latest `fn`), as its module has it. */
export const useEvent = <A extends unknown[], R>(fn: (...args: A) => R): ((...args: A) => R) => {
  type Pair = [latest: (...args: A) => R, stable: (...args: A) => R]
  const ref: Pair = useRef<Pair>([fn, (...args: A): R => ref[0](...args)]).current
  useInsertionEffect(() => {
    ref[0] = fn
  })
  return ref[1]
}
