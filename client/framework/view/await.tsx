/**
 * `<Await>`: one deferred part of a loader's data on screen (docs/guide/deferred-data.md).
 * A failed part shows `error(failure)` in its place alone: the rest of the page stays.
 *
 * ```tsx
 * <Await resolve={data.slow} fallback={<p>Counting…</p>} error={(failure) => <p>Not now ({failure.digest})</p>}>
 *   {(slow) => <Stats stats={slow} />}
 * </Await>
 * ```
 */
import { Component, createContext, Suspense, use, useContext, type ReactNode } from 'react'
import { isDeferredDataError, settledFailure } from '../../../shared/framework/deferred.js'

export interface PartFailure {
  readonly digest: string | undefined
  readonly message: string
}

export interface AwaitProps<T> {
  readonly resolve: Promise<T>
  readonly fallback: ReactNode
  readonly children: (value: T) => ReactNode
  readonly error?: (failure: PartFailure) => ReactNode
}

/**
 * A part that failed before it is rendered shows its error at once instead of throwing:
 * React renders no error boundary on the server, so a throw leaves the fallback in the
 * HTML. The streamed render wants that (`false`: the browser replaces it); a crawler's
 * whole page would keep the fallback for good.
 */
export const FailedPartInPlace = createContext(true)

export function Await<T>({ resolve, fallback, children, error = defaultError }: AwaitProps<T>) {
  return (
    <PartBoundary render={error} part={resolve}>
      <Suspense fallback={fallback}>
        <Resolved promise={resolve} error={error}>
          {children}
        </Resolved>
      </Suspense>
    </PartBoundary>
  )
}

interface ResolvedProps<T> {
  readonly promise: Promise<T>
  readonly children: (value: T) => ReactNode
  readonly error: (failure: PartFailure) => ReactNode
}

function Resolved<T>({ promise, children, error }: ResolvedProps<T>) {
  const failure = useContext(FailedPartInPlace) ? settledFailure(promise) : undefined
  if (failure) return error(failure)
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
  /** Another promise (the page loaded again) is another chance. */
  readonly part: Promise<unknown>
  readonly children: ReactNode
}

interface BoundaryState {
  readonly failure: unknown
  readonly failedPart?: Promise<unknown> | undefined
}

/** Anything but its part's failure (a bug in `children`) goes on to the boundary above. */
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
