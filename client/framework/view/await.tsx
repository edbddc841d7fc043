/**
 * `<Await>`: one deferred part of a loader's data on screen (docs/guide/deferred-data.md).
 * Its fallback while the part is on its way, `children(value)` once it is there, and
 * `error(failure)` if it failed (the server's digest, already logged and reported
 * there) or never came, in its place alone: the rest of the page stays.
 *
 * ```tsx
 * <Await resolve={data.slow} fallback={<p>Counting…</p>} error={(failure) => <p>Not now ({failure.digest})</p>}>
 *   {(slow) => <Stats stats={slow} />}
 * </Await>
 * ```
 *
 * The same as `use(data.slow)` in a component inside `<Suspense>`, with a boundary for
 * the part's failure; without one, a failed part shows the route's error component.
 */
import { Component, Suspense, use, type ReactNode } from 'react'
import { isDeferredDataError } from '../../../shared/framework/deferred.js'

/** Why a deferred part is not there: the digest of the server's log line, or what happened on the way. */
export interface PartFailure {
  readonly digest: string | undefined
  readonly message: string
}

export interface AwaitProps<T> {
  readonly resolve: Promise<T>
  readonly fallback: ReactNode
  readonly children: (value: T) => ReactNode
  /** What shows when the part failed; by default a short notice with the digest. */
  readonly error?: (failure: PartFailure) => ReactNode
}

export function Await<T>({ resolve, fallback, children, error = defaultError }: AwaitProps<T>) {
  return (
    <PartBoundary render={error} part={resolve}>
      <Suspense fallback={fallback}>
        <Resolved promise={resolve}>{children}</Resolved>
      </Suspense>
    </PartBoundary>
  )
}

function Resolved<T>({ promise, children }: { readonly promise: Promise<T>; readonly children: (value: T) => ReactNode }) {
  return children(use(promise))
}

function defaultError(failure: PartFailure): ReactNode {
  return (
    <p className="part-error" role="alert">
      This part of the page could not be loaded.{failure.digest !== undefined && <span className="digest">{` Digest: ${failure.digest}`}</span>}
    </p>
  )
}

interface BoundaryProps {
  readonly render: (failure: PartFailure) => ReactNode
  /** The part: another promise (the page loaded again, another query) is another chance. */
  readonly part: Promise<unknown>
  readonly children: ReactNode
}

interface BoundaryState {
  readonly failure: unknown
  readonly failedPart?: Promise<unknown> | undefined
}

/** Catches its part's failure; anything else (a bug in `children`) goes on to the boundary above. */
class PartBoundary extends Component<BoundaryProps, BoundaryState> {
  override state: BoundaryState = { failure: undefined }

  static getDerivedStateFromError(failure: unknown): Partial<BoundaryState> {
    return { failure }
  }

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    if (state.failure === undefined) return null
    if (state.failedPart === undefined) return { failedPart: props.part }
    return state.failedPart === props.part ? null : { failure: undefined, failedPart: undefined }
  }

  override render() {
    const { failure } = this.state
    if (failure === undefined) return this.props.children
    if (!isDeferredDataError(failure)) throw failure
    return this.props.render({ digest: failure.digest, message: failure.message })
  }
}
