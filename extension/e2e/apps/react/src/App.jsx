import { Card } from "./Card.jsx";
import { Toolbar } from "./Toolbar.jsx";

const items = ["Mug", "Plate", "Bowl"];

export function App() {
  return (
    <main data-pick="p1" className="shop">
      <h1 data-pick="p2">Fixture shop</h1>
      <Toolbar />
      <section data-pick="p3" className="cards">
        {items.map((name) => (
          <Card key={name} name={name} />
        ))}
      </section>
      <aside data-pick="p4">
        <p data-pick="p5">Free shipping over 50 €</p>
        <ul data-pick="p6">
          <li data-pick="p7">Returns in 30 days</li>
          <li data-pick="p8">Pay by card</li>
        </ul>
      </aside>
      <footer data-pick="p9">
        <a data-pick="p10" href="#terms">Terms</a>
        <span data-pick="p11"> · </span>
        <a data-pick="p12" href="#privacy">Privacy</a>
      </footer>
    </main>
  );
}
