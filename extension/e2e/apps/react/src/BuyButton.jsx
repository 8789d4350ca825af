export function BuyButton({ label }) {
  return (
    <div data-pick="p17" className="buy">
      <button data-pick="p18" type="button">
        <span data-pick="p19">{label}</span>
      </button>
    </div>
  );
}
