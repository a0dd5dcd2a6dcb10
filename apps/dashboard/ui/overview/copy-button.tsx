'use client';

import { useState } from 'react';

/** Copies `text` to the clipboard and says so. */
export default function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'copied' : 'copy'}
    </button>
  );
}
