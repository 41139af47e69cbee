import './main.css';

// The page's session: the API is used through a same-origin cookie, never a key held here.
const status = document.getElementById('status')!;
const session = await fetch('/session', { credentials: 'same-origin' });
status.textContent = session.ok ? 'Signed in.' : 'Not signed in.';
