// The article list: every published article (the client pages by itself), cached under the list's tag.
import Link from 'next/link';
import { articlePath, LIST_TAG, quire } from '../lib/quire';

export default async function Home() {
  const articles = [];
  for await (const item of quire([LIST_TAG]).articles()) articles.push(item);
  return (
    <main>
      <h1>Articles</h1>
      <ul>
        {articles.map((a) => (
          <li key={a.slug}>
            <Link href={articlePath(a.slug)}>{a.title}</Link>
          </li>
        ))}
      </ul>
    </main>
  );
}
