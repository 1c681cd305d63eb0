import { SvcTracker } from '@svc/react';
import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { settings } from '@/lib/settings';
import './site.css';

export const metadata: Metadata = { title: 'Acme Widgets' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  await connection(); // rendered per request: the portal comes from the environment at run time
  return (
    <html lang="en">
      <body>
        {/* One tracker for the site's life; each client-side navigation is one page view. */}
        <SvcTracker portalId={settings.portalId()} collector="/svc" />
        <nav>
          <Link href="/">Home</Link>
          <Link href="/pricing">Pricing</Link>
          <Link href="/contact">Contact</Link>
          {/* A page of the companion's, through the route handler: not a Next.js route. */}
          <a href="/svc/preferences">Email preferences</a>
        </nav>
        <main>{children}</main>
      </body>
    </html>
  );
}
