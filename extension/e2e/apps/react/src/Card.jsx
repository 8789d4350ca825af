import { BuyButton } from "./BuyButton.jsx";

export function Card({ name }) {
  return (
    <article data-pick="p13" className="card">
      <h2 data-pick="p14">{name}</h2>
      <p data-pick="p15" className="price">12 €</p>
      <img data-pick="p16" alt={name} width="40" height="40" />
      <BuyButton label={`Buy ${name}`} />
    </article>
  );
}
