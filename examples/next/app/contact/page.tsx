import type { Metadata } from 'next';
import { settings } from '@/lib/settings';
import { ContactForm } from './contact-form';

export const metadata: Metadata = { title: 'Contact · Acme Widgets' };

export default function Contact() {
  return (
    <>
      <h1>Contact us</h1>
      <ContactForm portalId={settings.portalId()} formId={settings.contactFormId()} formsUrl={settings.formsUrl()} />
    </>
  );
}
