// What the admin app answers when a request fails on the server: a page of the app (never the
// Content API's JSON), with no detail of the failure beyond what the server's log has.
import { Layout } from './layout.tsx';

export function ErrorPage(props: { csrf?: string | undefined; message: string }) {
  return (
    <Layout title="Error" csrf={props.csrf}>
      <div class="card narrow">
        <h1>That did not work</h1>
        <p>{props.message}</p>
        <p>
          <a href="/admin">Go to your sites</a>
        </p>
      </div>
    </Layout>
  );
}
