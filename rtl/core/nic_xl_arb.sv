`default_nettype none
// nic_xl_arb: the translation arbiter in front of nic_mr_table's xl port. NumClients clients
// each offer a request (req_i[c] with its fields) and are granted in the same cycle (gnt_o[c]),
// client 0 first, then 1, ... (fixed priority: in nic_core the responder's dispatcher, client 0,
// drains the receive path, then its read-response engine, then the requester). A granted request
// goes to the table tagged with its client's number; the table returns the tag with the answer, which goes to that client only (rsp_valid_o[c]; status,
// pfn and page offset are shared). So the table's latency is the table's business: no client
// and no arbiter counts cycles, and a register may be put on either side of the table.
// A client whose request is not granted may change or drop it.
// OutReg = 1 puts that register on the table's side: the granted request goes to the table from
// a register, a cycle after its grant (the table takes one request a cycle, so the register is
// free again at once and the grants are unchanged). It ends the clients' request logic (a
// client's valid decides the pick, which steers every field) at the register instead of
// carrying it through the table's RAM address and forwarding compares; the answers come a
// cycle later. nic_core uses it; OutReg = 0 (combinational) is kept for the module benches.
module nic_xl_arb #(
  parameter int NumClients = 2,    // clients, 2..16
  parameter bit OutReg     = 1'b0  // the request to the table from a register (above)
) (
  input  logic                     clk_i,       // used with OutReg only
  input  logic                     rst_i,
  // requests
  input  logic [NumClients-1:0]    req_i,
  output logic [NumClients-1:0]    gnt_o,
  input  logic [NumClients*32-1:0] token_i,     // client c in [32c+31:32c]
  input  logic [NumClients*64-1:0] va_i,
  input  logic [NumClients*32-1:0] len_i,
  input  logic [NumClients*16-1:0] pd_i,
  input  logic [NumClients*16-1:0] access_i,    // nic_pkg::FLAG_ALLOW_* bits needed
  input  logic [NumClients-1:0]    inv_i,       // a remote invalidation instead
  output logic [NumClients-1:0]    rsp_valid_o, // the answer to client c's request
  // nic_mr_table's translation port
  output logic                     xl_valid_o,
  output logic [31:0]              xl_token_o,
  output logic [63:0]              xl_va_o,
  output logic [31:0]              xl_len_o,
  output logic [15:0]              xl_pd_o,
  output logic [15:0]              xl_access_o,
  output logic                     xl_inv_o,
  output logic [3:0]               xl_tag_o,
  input  logic                     xl_valid_i,
  input  logic [3:0]               xl_tag_i
);

  if (NumClients < 2 || NumClients > 16) begin : gen_bad_clients
    $fatal(1, "nic_xl_arb: NumClients must be 2..16 (4-bit tags)");
  end

  logic [3:0]  pick;
  logic [15:0] inv_all;       // one bit per possible client (absent ones: 0)

  assign inv_all = 16'(inv_i);

  // the lowest requesting client
  always_comb begin
    pick = '0;
    for (int c = NumClients - 1; c >= 0; c--) begin
      if (req_i[c]) begin
        pick = 4'(c);
      end
    end
  end

  always_comb begin
    for (int c = 0; c < NumClients; c++) begin
      gnt_o[c]       = req_i[c] && pick == 4'(c);
      rsp_valid_o[c] = xl_valid_i && xl_tag_i == 4'(c);
    end
  end

  logic        o_valid;
  logic [31:0] o_token, o_len;
  logic [63:0] o_va;
  logic [15:0] o_pd, o_access;
  logic        o_inv;

  assign o_valid  = req_i != '0;
  assign o_token  = token_i[32*pick +: 32];
  assign o_va     = va_i[64*pick +: 64];
  assign o_len    = len_i[32*pick +: 32];
  assign o_pd     = pd_i[16*pick +: 16];
  assign o_access = access_i[16*pick +: 16];
  assign o_inv    = inv_all[pick];

  if (OutReg) begin : gen_out_reg
    logic        valid_q;
    logic [31:0] token_q, len_q;
    logic [63:0] va_q;
    logic [15:0] pd_q, access_q;
    logic        inv_q;
    logic [3:0]  tag_q;

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        valid_q <= 1'b0;
      end else begin
        valid_q <= o_valid;
      end
      // the fields only with a request (an idle table port holds the last one)
      if (o_valid) begin
        token_q  <= o_token;
        va_q     <= o_va;
        len_q    <= o_len;
        pd_q     <= o_pd;
        access_q <= o_access;
        inv_q    <= o_inv;
        tag_q    <= pick;
      end
    end

    assign xl_valid_o  = valid_q;
    assign xl_token_o  = token_q;
    assign xl_va_o     = va_q;
    assign xl_len_o    = len_q;
    assign xl_pd_o     = pd_q;
    assign xl_access_o = access_q;
    assign xl_inv_o    = inv_q;
    assign xl_tag_o    = tag_q;
  end else begin : gen_comb
    logic unused_clk;
    assign unused_clk = clk_i ^ rst_i;

    assign xl_valid_o  = o_valid;
    assign xl_token_o  = o_token;
    assign xl_va_o     = o_va;
    assign xl_len_o    = o_len;
    assign xl_pd_o     = o_pd;
    assign xl_access_o = o_access;
    assign xl_inv_o    = o_inv;
    assign xl_tag_o    = pick;
  end

endmodule
