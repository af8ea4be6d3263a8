// The admin app's own 404: every address under /admin answers with a page of the app, never
// with the Content API's JSON error.
import { Layout } from './layout.tsx';

export function NotFoundPage(props: { csrf?: string }) {
  return (
    <Layout title="Not found" csrf={props.csrf}>
      <div class="card narrow">
        <h1>Page not found</h1>
        <p class="muted">
          There is no page at this address in the Publishing app. It may be a form's address, which only takes a
          submitted form.
        </p>
        <p>
          <a href="/admin">Go to your sites</a>
        </p>
      </div>
    </Layout>
  );
}
