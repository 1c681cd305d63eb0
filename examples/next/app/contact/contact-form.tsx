'use client';
import { SvcForm } from '@svc/react';
import Link from 'next/link';
import { useState } from 'react';

/** Callbacks are functions, which a server component cannot pass: the form with its callbacks is a
 * client component. The submission itself links the visitor to the new contact. */
export function ContactForm({ portalId, formId, formsUrl }: { portalId: string; formId: string; formsUrl: string }) {
  const [sent, setSent] = useState(false);
  return (
    <>
      <SvcForm
        portalId={Number(portalId)}
        formId={formId}
        formsUrl={formsUrl}
        companion="/svc"
        className="contact-form"
        onSubmitted={() => setSent(true)}
      />
      {sent && (
        <p id="sent">
          <Link href="/">Back to the home page</Link>
        </p>
      )}
    </>
  );
}
