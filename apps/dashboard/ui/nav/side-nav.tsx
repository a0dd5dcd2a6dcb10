import NavLinks from './nav-links';

export default function SideNav() {
  return (
    <nav className="sidenav">
      <div className="brand">
        mcp-resilience
        <small>retry &amp; breaker dashboard</small>
      </div>
      <NavLinks />
    </nav>
  );
}
