`default_nettype none
// nic_dma_pkg: the arithmetic every DMA client of the core does the same way, written once.
//
// A DMA transfer ("piece") never crosses a 4 KiB page (each page is translated on its own) and
// never exceeds one AXI4 burst (256 beats, and never more than a page); its beats are aligned
// to the data path, so a piece that starts at byte lane L of a beat takes ceil((L + len) / W8)
// beats. Functions only (no state): Yosys 0.23 folds the constant arguments.
package nic_dma_pkg;

  // The longest burst in bytes at bytes_per_beat bytes a beat: 256 beats, at most a page.
  function automatic int max_burst_bytes(input int bytes_per_beat);
    max_burst_bytes = (256 * bytes_per_beat < 4096) ? 256 * bytes_per_beat : 4096;
  endfunction

  // len, cut so that the piece starting at the address whose low 12 bits are va_low stays in
  // its 4 KiB page and in one burst (len itself is already cut to what its caller has left).
  function automatic logic [12:0] piece_clip(input logic [12:0] len, input logic [11:0] va_low,
                                             input int bytes_per_beat);
    logic [12:0] page_room, burst_room;
    logic [11:0] lane;
    lane       = va_low & 12'(bytes_per_beat - 1);
    page_room  = 13'd4096 - {1'b0, va_low};
    burst_room = 13'(nic_dma_pkg::max_burst_bytes(bytes_per_beat)) - {1'b0, lane};
    piece_clip = len;
    if (page_room < piece_clip) begin
      piece_clip = page_room;
    end
    if (burst_room < piece_clip) begin
      piece_clip = burst_room;
    end
  endfunction

  // The AXI4 burst length (beats - 1) of a piece of len bytes starting at byte lane lane.
  function automatic logic [7:0] burst_len(input logic [11:0] lane, input logic [12:0] len,
                                           input int bytes_per_beat);
    burst_len = 8'((32'(lane) + 32'(len) + bytes_per_beat - 1) / bytes_per_beat - 1);
  endfunction

endpackage
