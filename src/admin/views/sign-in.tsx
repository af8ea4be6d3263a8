import { Layout } from './layout.tsx';

export function SignInPage(props: { error?: string | null }) {
  return (
    <Layout title="Sign in" flash={props.error ? { kind: 'error', text: props.error } : null}>
      <div class="card narrow">
        <h1>Sign in</h1>
        <p class="muted">
          Enter the admin token. It is set with <code>QUIRE_ADMIN_TOKEN</code>, or printed by <code>npm start</code> as
          a sign-in link.
        </p>
        <form method="post" action="/admin/sign-in">
          <label for="admin-token">Admin token</label>
          <input id="admin-token" name="token" type="password" autocomplete="current-password" required autofocus />
          <div class="actions">
            <button class="primary" type="submit">
              Sign in
            </button>
          </div>
        </form>
      </div>
    </Layout>
  );
}
