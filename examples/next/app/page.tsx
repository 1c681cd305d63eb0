import { getVisitor } from '@svc/companion/fetch';
import { cookies } from 'next/headers';
import { svc } from '@/lib/svc';

// "Welcome back, Ada" in the first paint: a server component asks the companion, from the same
// cache as /svc/visitor. A platform that fails costs the greeting, never the page.
export default async function Home() {
  const me = await getVisitor(await cookies(), svc()).catch(() => ({ known: false as const }));
  const name = me.known ? me.properties.firstname : undefined;
  return (
    <>
      <h1 id="greeting">{me.known ? `Welcome back${name ? `, ${name}` : ''}` : 'Welcome'}</h1>
      <p>Widgets for every workshop. See our prices, or tell us what you need.</p>
    </>
  );
}
