export function Toolbar() {
  return (
    <nav data-pick="p20" className="toolbar">
      <input data-pick="p21" type="search" placeholder="Search" />
      <button data-pick="p22" type="button">Go</button>
      <label data-pick="p23">
        <input data-pick="p24" type="checkbox" /> In stock
      </label>
    </nav>
  );
}
