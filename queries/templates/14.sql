-- Q14 Promotion Effect (spec 2.4.14); :1 = DATE
select
    100.00 * sum(case
        when p_type like 'PROMO%'
            then l_extendedprice * (1 - l_discount)
        else 0
    end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
    lineitem,
    part
where
    l_partkey = p_partkey
    and l_shipdate >= date ':1'
    and l_shipdate < date ':1' + interval '1' month;
