import { href, routes, type PriceSummary, type SlowStatistics } from '../../shared/routes.js'
import { Await, definePage, Link, SearchForm, type PageProps } from '../framework/index.js'

export default definePage(routes.stats, {
  title: (data) => `${data.title}: price statistics`,
  head: (data) => ({ description: `Price statistics of ${data.title}.`, canonical: href('stats', { id: String(data.id) }) }),
  Component: StatsPage,
})

const price = (value: number) => value.toFixed(2)

/** What the tag form offers: `?tags=` takes any count from 1 to 12. */
const TAG_CHOICES = [1, 3, 5, 12] as const

/** The summary at once; the slow statistics in their own place, a fallback until they arrive. */
function StatsPage({ data }: PageProps<typeof routes.stats>) {
  return (
    <article>
      <h1>{`${data.title}: price statistics`}</h1>
      <p>
        <Link href={href('items', { id: String(data.id) })}>Back to the list</Link>
        {' · '}
        {data.tagCount === 3 ? (
          <Link href={href('stats', { id: String(data.id) })}>Every tag</Link>
        ) : (
          <Link href={href('stats', { id: String(data.id) }, { tags: 3 })}>The three most common tags</Link>
        )}
      </p>
      <SearchForm route={routes.stats} className="tag-choice">
        {(form) => (
          <p>
            <label htmlFor={form.field('tags').id}>Tags listed</label>{' '}
            <select {...form.field('tags')}>
              {TAG_CHOICES.map((count) => (
                <option key={count} {...form.option('tags', count)}>
                  {count === 12 ? 'All' : `The ${count} most common`}
                </option>
              ))}
            </select>{' '}
            <button type="submit">Show</button>
          </p>
        )}
      </SearchForm>
      <Summary summary={data.summary} />
      <section aria-labelledby="slow-statistics">
        <h2 id="slow-statistics">Slow statistics</h2>
        <Await resolve={data.slow} fallback={<p className="loading-part">Counting the slow statistics…</p>}>
          {(slow) => <Slow statistics={slow} />}
        </Await>
      </section>
    </article>
  )
}

function Summary({ summary }: { readonly summary: PriceSummary }) {
  return (
    <dl className="summary">
      <dt>Rows</dt>
      <dd>{summary.count}</dd>
      <dt>Lowest price</dt>
      <dd>{price(summary.lowest)}</dd>
      <dt>Highest price</dt>
      <dd>{price(summary.highest)}</dd>
      <dt>Mean price</dt>
      <dd>{price(summary.mean)}</dd>
    </dl>
  )
}

function Slow({ statistics }: { readonly statistics: SlowStatistics }) {
  return (
    <div className="slow-statistics">
      <dl className="summary">
        <dt>Median price</dt>
        <dd>{price(statistics.median)}</dd>
        <dt>Standard deviation</dt>
        <dd>{price(statistics.standardDeviation)}</dd>
      </dl>
      <p>{`Tags: ${statistics.tags.map(({ tag, rows }) => `${tag} (${rows})`).join(', ')}`}</p>
    </div>
  )
}
