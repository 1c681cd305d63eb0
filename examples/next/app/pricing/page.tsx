import type { Metadata } from 'next';

export const metadata: Metadata = { title: 'Pricing · Acme Widgets' };

export default function Pricing() {
  return (
    <>
      <h1>Pricing</h1>
      <p>Sprockets from 4 €, gizmos from 9 €, doohickeys on request.</p>
    </>
  );
}
