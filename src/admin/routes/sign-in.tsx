// Signing in and out, and the session every other page needs: GET and POST /admin/sign-in (the
// admin token for a session cookie; wrong tokens throttled per client), the guard that sends a
// request without a session to sign in and checks every POST's origin and CSRF token, and
// POST /admin/sign-out.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { TrustProxy } from '../../config/trust-proxy.ts';
import { requestClientAddress } from '../../server/client-address.ts';
import type { AdminEnv } from '../admin-deps.ts';
import type { SameOrigin } from '../same-origin.ts';
import { SESSION_COOKIE, type Sessions } from '../sessions.ts';
import { ErrorPage } from '../views/error-page.tsx';
import { SignInPage } from '../views/sign-in.tsx';

const CROSS_SITE = 'Refused: this form was sent from another site. Use the Publishing app itself.';

const refuse = (c: Context, status: 401 | 403, message: string) => c.html(<ErrorPage message={message} />, status);

/** GET and POST /sign-in. */
export function addSignIn(
  app: Hono<AdminEnv>,
  { sessions, origin, trustProxy }: { sessions: Sessions; origin: SameOrigin; trustProxy?: TrustProxy },
): void {
  app.get('/sign-in', (c) => c.html(<SignInPage />));
  app.post('/sign-in', async (c) => {
    if (origin.crossSite(c)) return refuse(c, 403, CROSS_SITE);
    const form = await c.req.parseBody();
    const result = sessions.signIn(
      typeof form.token === 'string' ? form.token : '',
      requestClientAddress(c, trustProxy),
    );
    if (result === 'throttled')
      return c.html(<SignInPage error="Too many wrong tokens: wait a minute and try again." />, 429);
    if (!result) return c.html(<SignInPage error="That token is not right." />, 401);
    setCookie(c, SESSION_COOKIE, result.id, {
      path: '/admin',
      httpOnly: true,
      sameSite: 'Strict',
      secure: origin.secure(c),
      maxAge: 12 * 3600,
    });
    return c.redirect('/admin', 303);
  });
}

/** Everything after it needs a session (c.var.session); every POST also needs its CSRF token, from this app's own pages. */
export const requireSession = ({
  sessions,
  origin,
}: {
  sessions: Sessions;
  origin: SameOrigin;
}): MiddlewareHandler<AdminEnv> =>
  async function requireSession(c, next) {
    const session = sessions.get(getCookie(c, SESSION_COOKIE));
    if (!session) {
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return c.redirect('/admin/sign-in', 303);
      return refuse(c, 401, 'Sign in first: there is no session, or it has ended.');
    }
    if (c.req.method === 'POST') {
      if (origin.crossSite(c)) return refuse(c, 403, CROSS_SITE);
      const form = await c.req.parseBody();
      const token = typeof form._csrf === 'string' ? form._csrf : c.req.header('x-csrf-token');
      if (!sessions.csrfValid(session, token))
        return refuse(c, 403, 'The form expired or did not come from this app: reload the page and try again.');
    }
    c.set('session', session);
    await next();
  };

/** POST /sign-out (behind requireSession). */
export function addSignOut(app: Hono<AdminEnv>, sessions: Sessions): void {
  app.post('/sign-out', (c) => {
    sessions.signOut(c.get('session').id);
    deleteCookie(c, SESSION_COOKIE, { path: '/admin' });
    return c.redirect('/admin/sign-in', 303);
  });
}
