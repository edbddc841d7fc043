import { CONTACT_ATTACHMENT, routes } from '../../shared/routes.js'
import { describeBytes, describeTypes } from '../../shared/framework/index.js'
import { definePage, Form, type PageProps } from '../framework/index.js'

export default definePage(routes.contact, {
  title: (data) => (data.thanks ? 'Message sent' : 'Contact'),
  head: () => ({ description: 'Send us a message: your name, your email address and what you want to say.' }),
  Component: ContactPage,
})

/** Each input's `required`, `maxlength` and `type` come from the route table's schema through `form.field()`. */
function ContactPage({ data }: PageProps<typeof routes.contact>) {
  return (
    <article>
      {data.thanks ? (
        <>
          <h1>Thank you</h1>
          <p role="status">{data.thanks}</p>
          <h2>Send another message</h2>
        </>
      ) : (
        <h1>Contact</h1>
      )}
      <Form route={routes.contact} action="send" className="contact-form">
        {(form) => (
          <>
            <p>
              <label htmlFor={form.field('name').id}>Name</label>
              <input {...form.field('name')} autoComplete="name" />
              {form.error('name')}
            </p>
            <p>
              <label htmlFor={form.field('email').id}>Email</label>
              <input {...form.field('email')} autoComplete="email" />
              {form.error('email')}
            </p>
            <p>
              <label htmlFor={form.field('message').id}>Message</label>
              <textarea {...form.field('message')} rows={6} />
              {form.error('message')}
            </p>
            <p>
              <label htmlFor={form.file('attachment').id}>
                Attachment{' '}
                <small>
                  (optional: {describeTypes(CONTACT_ATTACHMENT.types)}, at most {describeBytes(CONTACT_ATTACHMENT.maxBytes)})
                </small>
              </label>
              <input {...form.file('attachment')} />
              {form.error('attachment')}
            </p>
            {/* aria-disabled, not disabled: a disabled button would drop focus to the page (a second submit is ignored anyway). */}
            <button type="submit" aria-disabled={form.pending || undefined}>
              {form.pending ? (form.progress === undefined ? 'Sending…' : `Sending… ${form.progress}%`) : 'Send'}
            </button>
            {form.pending && form.progress !== undefined && <progress max={100} value={form.progress} aria-label="Sent so far" />}
          </>
        )}
      </Form>
    </article>
  )
}
