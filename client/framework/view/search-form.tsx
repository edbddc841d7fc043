/**
 * `<SearchForm route>`: a GET form whose fields are the route's declared search params,
 * type-checked so a misspelt field cannot silently drop a filter. With JavaScript, a
 * client navigation to the URL `href()` would write (docs/guide/adding-a-page.md).
 */
import { useId, type FormEvent, type FormHTMLAttributes, type ReactNode } from 'react'
import { useLocation, useSearch } from 'wouter'
import { searchDeclOf, type SearchDecl, type SearchOf, type SearchParamDecl } from '../../../shared/framework/search-params.js'

type ValueOf<P> = P extends SearchParamDecl<infer T, any> ? T : never

export interface SearchFieldProps<Name extends string> {
  readonly name: Name
  readonly id: string
  /** The value in the URL, else the declared default. */
  readonly defaultValue: string
}

export interface SearchFormApi<D> {
  /** `<select {...form.field('tags')}>` or `<input {...form.field('q')} />`. */
  field<K extends keyof D & string>(name: K): SearchFieldProps<K>
  /** `<option {...form.option('tags', 3)}>`: a value of the parameter's type (a number for `int`, one of `oneOf`'s). */
  option<K extends keyof D & string>(name: K, value: ValueOf<D[K]>): { readonly value: string }
}

export interface SearchFormProps<R> extends Omit<FormHTMLAttributes<HTMLFormElement>, 'action' | 'method' | 'children' | 'onSubmit'> {
  readonly route: R
  readonly children: (form: SearchFormApi<SearchOf<R>>) => ReactNode
}

export function SearchForm<R extends object>({ route, children, ...rest }: SearchFormProps<R>) {
  const [path, navigate] = useLocation()
  const search = useSearch()
  const id = useId()
  const decl: SearchDecl = searchDeclOf(route) ?? {}
  const current = new URLSearchParams(search)
  const api: SearchFormApi<SearchOf<R>> = {
    field: (name) => ({ name, id: `${id}-${name}`, defaultValue: current.get(name) ?? String(decl[name]?.default ?? '') }),
    option: (_name, value) => ({ value: String(value) }),
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault()
    navigate(path + queryOf(decl, new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter)))
  }

  // Keyed by the query, so Back and Forward show the fields of the page they reach.
  return (
    <form key={search} method="get" action={path} role="search" onSubmit={submit} {...rest}>
      {children(api)}
    </form>
  )
}

/**
 * As `href()` writes it: a value equal to its default is left out, and so is an empty field
 * (where the browser's GET would send `?tags=` and get a 400). Nothing is parsed, to keep
 * the parser out of the first-load script: the server gives the 400, as without script.
 */
function queryOf(decl: SearchDecl, data: FormData): string {
  const query = new URLSearchParams()
  for (const [name, value] of data) {
    if (typeof value !== 'string' || value === '') continue
    const param = Object.hasOwn(decl, name) ? decl[name] : undefined
    if (param?.default !== undefined && String(param.default) === value) continue
    query.append(name, value)
  }
  const text = query.toString()
  return text ? `?${text}` : ''
}
